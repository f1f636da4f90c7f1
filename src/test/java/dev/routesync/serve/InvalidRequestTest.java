package dev.routesync.serve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.testing.RawConnection;
import dev.routesync.testing.ServeHarness;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Requests Vert.x rejects before any router sees them (request line or headers too long, garbage)
 * still get a JSON error body, on the socket and on the admin port.
 */
@ExtendWith(VertxExtension.class)
@Timeout(60)
class InvalidRequestTest {

  private static final String LONG_URI = "GET /v1/services?x=" + "a".repeat(5000) + " HTTP/1.1\r\n";
  private static final String LONG_HEADER =
      "GET /v1/services HTTP/1.1\r\nHost: localhost\r\nX-Big: " + "b".repeat(9000) + "\r\n\r\n";

  @Test
  void tooLongUriAndHeadersGetJsonOnTheSocket() throws Exception {
    try (ServeHarness serve = new ServeHarness()) {
      assertJsonError(
          RawConnection.unix(serve.socket()), LONG_URI + "Host: localhost\r\n\r\n", 414, "line");
      assertJsonError(RawConnection.unix(serve.socket()), LONG_HEADER, 431, "headers");
      assertJsonError(
          RawConnection.unix(serve.socket()), "GET /\u0001 HTTP/1.1\r\nbroken\r\n\r\n", 400, "");
    }
  }

  @Test
  void tooLongUriAndHeadersGetJsonOnTheAdminPort(Vertx vertx) throws Exception {
    AdminServer admin =
        new AdminServer(
            vertx,
            "127.0.0.1",
            0,
            new Readiness(),
            () -> Future.succeededFuture(LivenessVerdict.ALIVE),
            () -> new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
    int port = admin.listen().await(10, TimeUnit.SECONDS);
    assertJsonError(RawConnection.tcp(port), LONG_URI + "Host: localhost\r\n\r\n", 414, "line");
    assertJsonError(RawConnection.tcp(port), LONG_HEADER, 431, "headers");
  }

  private static void assertJsonError(
      RawConnection connection, String request, int status, String mentions) throws Exception {
    try (connection) {
      String answer = connection.write(request).readToEnd(Duration.ofSeconds(10));
      // HTTP/1.0 when the request line was not read far enough to know the version.
      assertThat(answer).containsPattern("^HTTP/1\\.[01] " + status + " ");
      assertThat(answer.toLowerCase(java.util.Locale.ROOT))
          .contains("content-type: application/json");
      JsonObject body = new JsonObject(answer.substring(answer.indexOf("\r\n\r\n") + 4));
      assertThat(body.getInteger("status")).isEqualTo(status);
      assertThat(body.getString("error")).isNotBlank().contains(mentions);
    }
  }
}
