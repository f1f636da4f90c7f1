package dev.routesync.serve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.testing.Http1;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Probes and metrics on the admin port, read with the JDK's own HTTP client (HTTP/1.1 through
 * {@link Http1}, each exchange bounded; HTTP/2 only where the h2c upgrade is the subject). Vert.x
 * is the extension's: it closes it after each test.
 */
@ExtendWith(VertxExtension.class)
@Timeout(60)
class AdminServerTest {

  private final Readiness readiness = new Readiness();
  private final AtomicReference<LivenessVerdict> liveness =
      new AtomicReference<>(LivenessVerdict.ALIVE);
  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private AdminServer server;
  private int port;

  @BeforeEach
  void start(Vertx vertx) throws Exception {
    server =
        new AdminServer(
            vertx,
            "127.0.0.1",
            0,
            readiness,
            () -> Future.succeededFuture(liveness.get()),
            () -> registry);
    port = server.listen().await(10, TimeUnit.SECONDS);
  }

  @AfterEach
  void stop() throws Exception {
    server.close().await(10, TimeUnit.SECONDS);
  }

  private HttpResponse<String> get(String path) throws Exception {
    return Http1.get("http://127.0.0.1:" + port + path);
  }

  @Test
  void readyOnlyAfterInitialSyncWithTheSocketListeningAndNotWhileDraining() throws Exception {
    assertThat(get("/readyz").statusCode()).isEqualTo(503);
    assertThat(get("/readyz").body()).contains("initial sync");
    readiness.initialSyncDone();
    assertThat(get("/readyz").statusCode()).isEqualTo(503);
    assertThat(get("/readyz").body()).contains("socket");
    readiness.socketListening(true);
    assertThat(get("/readyz").statusCode()).isEqualTo(200);
    readiness.draining();
    assertThat(get("/readyz").statusCode()).isEqualTo(503);
    assertThat(get("/readyz").body()).contains("shutting down");
  }

  @Test
  void livenessFailsWithTheReasonWhenTheSyncLoopIsStuck() throws Exception {
    assertThat(get("/healthz").statusCode()).isEqualTo(200);
    liveness.set(LivenessVerdict.notAlive("a change has waited 61s unpublished"));
    HttpResponse<String> stuck = get("/healthz");
    assertThat(stuck.statusCode()).isEqualTo(503);
    assertThat(stuck.body()).contains("61s unpublished");
  }

  /**
   * What the JDK client does by default: HTTP/2, so an {@code Upgrade: h2c} request on a fresh
   * connection. When the 101 and a response larger than the client's 16 KB read buffer arrive
   * together, the JDK (17 and 25) sometimes loses the bytes past its first read and waits for the
   * body forever; the admin listener therefore answers in HTTP/1.1 only. A /metrics of ~20 KB hung
   * about one request in ten before the fix, so 100 fresh clients reproduce it; each waits for the
   * whole body, bounded.
   */
  @Test
  void answersAnH2cUpgradeInHttp11AndTheWholeBodyArrives() throws Exception {
    for (int i = 0; i < 400; i++) {
      registry.counter("routesync.test.padding", "n", Integer.toString(i)).increment();
    }
    for (int i = 0; i < 100; i++) {
      HttpClient fresh = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).build();
      HttpResponse<String> metrics =
          Http1.send(
              fresh, HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")));
      assertThat(metrics.statusCode()).isEqualTo(200);
      assertThat(metrics.body().length()).isGreaterThan(16 * 1024);
      assertThat(metrics.body()).contains("n=\"399\"");
      assertThat(metrics.version()).isEqualTo(HttpClient.Version.HTTP_1_1);
    }
  }

  @Test
  void servesPrometheusText() throws Exception {
    registry.counter("routesync.test.things").increment();
    HttpResponse<String> metrics = get("/metrics");
    assertThat(metrics.statusCode()).isEqualTo(200);
    assertThat(metrics.body()).contains("routesync_test_things_total 1.0");
  }
}
