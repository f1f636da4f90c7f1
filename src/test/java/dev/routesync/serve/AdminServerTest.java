package dev.routesync.serve;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Probes and metrics on the admin port, read with the JDK's own HTTP client. */
class AdminServerTest {

  private final Readiness readiness = new Readiness();
  private final AtomicReference<String> liveness = new AtomicReference<>("");
  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final HttpClient client = HttpClient.newHttpClient();
  private Vertx vertx;
  private AdminServer server;
  private int port;

  @BeforeEach
  void start() throws Exception {
    vertx = Vertx.vertx();
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
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  private HttpResponse<String> get(String path) throws Exception {
    return client.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
        HttpResponse.BodyHandlers.ofString());
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
    liveness.set("a change has waited 61s unpublished");
    HttpResponse<String> stuck = get("/healthz");
    assertThat(stuck.statusCode()).isEqualTo(503);
    assertThat(stuck.body()).contains("61s unpublished");
  }

  @Test
  void servesPrometheusText() throws Exception {
    registry.counter("routesync.test.things").increment();
    HttpResponse<String> metrics = get("/metrics");
    assertThat(metrics.statusCode()).isEqualTo(200);
    assertThat(metrics.body()).contains("routesync_test_things_total 1.0");
  }
}
