package dev.routesync.logs;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import ch.qos.logback.core.status.Status;
import ch.qos.logback.core.status.StatusUtil;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;

/**
 * What the agent prints on stderr, configured by the production {@code logback.xml} (not the tests'
 * own) in a logger context of its own: a credential a library logs, such as fabric8's request
 * headers at TRACE, is printed redacted in either log format.
 */
class ConsoleRedactionTest {

  private static final String TOKEN = "abc.def.ghi";

  @Test
  void theTextConsoleNeverPrintsABearerToken() throws Exception {
    String printed = stderrOf(LogFormat.TEXT, log -> log.info("> Authorization: Bearer {}", TOKEN));

    assertThat(printed).contains("> Authorization: Bearer <redacted>").doesNotContain(TOKEN);
  }

  @Test
  void theJsonConsoleNeverPrintsABearerToken() throws Exception {
    String printed =
        stderrOf(
            LogFormat.JSON,
            log ->
                log.atInfo()
                    .addKeyValue("header", "Bearer " + TOKEN)
                    .log("> Authorization: Bearer {}", TOKEN));

    assertThat(printed).contains("Bearer <redacted>").doesNotContain(TOKEN);
  }

  @Test
  void anExceptionsMessageIsRedactedToo() throws Exception {
    String printed =
        stderrOf(
            LogFormat.TEXT,
            log ->
                log.warn(
                    "request failed",
                    new IllegalStateException(
                        "GET https://10.0.0.1/api?access_token=" + TOKEN + " refused")));

    assertThat(printed).contains("access_token=<redacted>").doesNotContain(TOKEN);
  }

  /** What {@code write} logs, as the production configuration prints it in {@code format}. */
  private static String stderrOf(LogFormat format, Consumer<Logger> write) throws Exception {
    URL production = ConsoleRedactionTest.class.getResource("/logback.xml");
    assertThat(production).as("the production logback.xml on the classpath").isNotNull();
    LoggerContext context = new LoggerContext();
    context.setMDCAdapter(new LogbackMDCAdapter());
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    PrintStream original = System.err;
    // The console appender writes to whatever System.err is when it writes.
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      JoranConfigurator configurator = new JoranConfigurator();
      configurator.setContext(context);
      configurator.doConfigure(production);
      // A configuration logback could not read whole would print unredacted, or nothing.
      assertThat(new StatusUtil(context).getHighestLevel(0))
          .as("logback's status while reading logback.xml")
          .isLessThan(Status.WARN);
      ConsoleFormat.apply(format, context);
      write.accept(context.getLogger(dev.routesync.testing.LibraryLog.FABRIC8_HTTP));
    } finally {
      System.setErr(original);
      context.stop();
    }
    return captured.toString(StandardCharsets.UTF_8);
  }
}
