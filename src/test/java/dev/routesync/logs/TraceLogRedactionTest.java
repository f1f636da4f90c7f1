package dev.routesync.logs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.testing.ForkedAgent;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPInputStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code ROUTESYNC_LOG_LEVEL=TRACE}, as a person debugging the API server connection sets it: the
 * demo agent, in a JVM of its own with the production {@code logback.xml}, logs fabric8's request
 * headers, and its bearer token (the demo kubeconfig's {@code demo}) is in none of the places a log
 * line goes: stderr, {@code /debug/logs} and the debug bundle.
 */
class TraceLogRedactionTest {

  private static final String HEADER_LOGGED = "> Authorization: Bearer ";
  private static final String TOKEN_IN_CLEAR = "Bearer demo";

  private static final HttpClient HTTP =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  @Test
  @Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void theApiServerTokenIsRedactedEverywhereALogLineGoes() throws Exception {
    int debugPort = freePort();
    try (ForkedAgent agent =
        ForkedAgent.startLoggingApart(
            new String[] {"--debug-port=" + debugPort}, Map.of("ROUTESYNC_LOG_LEVEL", "TRACE"))) {
      Awaitility.await("fabric8 logged a request's headers")
          .atMost(Duration.ofSeconds(30))
          .until(() -> agent.log().contains(HEADER_LOGGED));

      assertThat(agent.log()).doesNotContain(TOKEN_IN_CLEAR).contains(HEADER_LOGGED + "<redacted>");
      String recent = get(debugPort, "/debug/logs", HttpResponse.BodyHandlers.ofString()).body();
      assertThat(recent).doesNotContain(TOKEN_IN_CLEAR);
      byte[] bundle =
          get(debugPort, "/debug/bundle", HttpResponse.BodyHandlers.ofByteArray()).body();
      String archive = gunzip(bundle);
      assertThat(archive).contains("logs.txt").doesNotContain(TOKEN_IN_CLEAR);
    }
  }

  private static <T> HttpResponse<T> get(int port, String path, HttpResponse.BodyHandler<T> handler)
      throws Exception {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(20))
            .build();
    HttpResponse<T> response = HTTP.sendAsync(request, handler).get(30, TimeUnit.SECONDS);
    assertThat(response.statusCode()).as(path).isEqualTo(200);
    return response;
  }

  // A tar holds each entry's bytes as they are: the text of every entry is in the whole.
  private static String gunzip(byte[] gzip) throws IOException {
    try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(gzip))) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket probe = new ServerSocket(0)) {
      return probe.getLocalPort();
    }
  }
}
