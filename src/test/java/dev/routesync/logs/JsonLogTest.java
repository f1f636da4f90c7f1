package dev.routesync.logs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.testing.ForkedAgent;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code --log-format json} as a log pipeline reads it: the demo agent, in a JVM of its own, writes
 * one JSON object per line on stderr, with the fields logback's encoder names and the key-value
 * pairs of the agent's important lines.
 */
class JsonLogTest {

  // The JVM itself prints this line on stderr before any Java code runs whenever
  // JAVA_TOOL_OPTIONS is set (the image sets it); no logging configuration can reach it.
  private static final String JVM_NOTICE = "Picked up JAVA_TOOL_OPTIONS:";

  @Test
  @Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void everyLineTheAgentLogsIsAJsonObjectWithItsFields() throws Exception {
    try (ForkedAgent agent = ForkedAgent.startLoggingApart("--log-format=json")) {
      Awaitility.await("initial sync logged")
          .atMost(Duration.ofSeconds(30))
          .until(() -> agent.log().contains("initial sync done"));

      List<JsonObject> lines = jsonLines(agent.log());

      assertThat(lines)
          .allSatisfy(
              line ->
                  assertThat(line.fieldNames())
                      .contains("timestamp", "level", "loggerName", "formattedMessage"));
      JsonObject listing =
          lines.stream()
              .filter(line -> line.getString("formattedMessage").startsWith("listing "))
              .findFirst()
              .orElseThrow();
      assertThat(listing.getString("level")).isEqualTo("INFO");
      assertThat(listing.getString("loggerName")).endsWith(".ResourceWatch");
      assertThat(listing.getString("message")).isEqualTo("listing {} ({}, generation {})");
      assertThat(listing.getJsonArray("kvpList").encode())
          .contains("\"reason\":\"initial\"")
          .contains("\"generation\":\"1\"");
    }
  }

  @Test
  @Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void theEnvironmentTwinSelectsJsonToo() throws Exception {
    try (ForkedAgent agent =
        ForkedAgent.startLoggingApart(
            new String[0], java.util.Map.of("ROUTESYNC_LOG_FORMAT", "json"))) {
      Awaitility.await("initial sync logged")
          .atMost(Duration.ofSeconds(30))
          .until(() -> agent.log().contains("initial sync done"));

      assertThat(jsonLines(agent.log())).isNotEmpty();
    }
  }

  /** Every line but the JVM's notice, parsed; a line that is not a JSON object fails the test. */
  private static List<JsonObject> jsonLines(String log) {
    return log.lines()
        .filter(line -> !line.startsWith(JVM_NOTICE))
        .map(
            line -> {
              try {
                return new JsonObject(line);
              } catch (DecodeException e) {
                throw new AssertionError("not a JSON object: " + line, e);
              }
            })
        .toList();
  }
}
