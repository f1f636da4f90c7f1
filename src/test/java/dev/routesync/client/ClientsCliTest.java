package dev.routesync.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.routesync.api.v1.WatchRequest;
import dev.routesync.sidecars.PeerIds;
import dev.routesync.sidecars.Protocol;
import dev.routesync.sidecars.SyncState;
import dev.routesync.testing.GrpcJavaClient;
import dev.routesync.testing.ServeHarness;
import dev.routesync.testing.WatchRecorder;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code routesync get clients} and {@code get latency} against the agent's real API server. */
@Timeout(60)
class ClientsCliTest {

  private ServeHarness serve;

  @BeforeEach
  void start() throws Exception {
    serve = new ServeHarness();
    serve.put("shop", "cart", 3);
  }

  @AfterEach
  void stop() throws Exception {
    serve.close();
  }

  private Cli.Result run(String args) {
    return Cli.run((args + " --socket " + serve.socket()).split(" "));
  }

  @Test
  void noClientIsSaidOnStandardErrorAndNothingPrinted() {
    Cli.Result result = run("get clients");

    assertThat(result.exitCode()).isZero();
    assertThat(result.out()).isEmpty();
    assertThat(result.err()).isEqualTo("No client is connected.\n");
  }

  @Test
  void getClientsListsEachStreamWithItsVersionsAndTheMostBehindFirst() throws Exception {
    try (GrpcJavaClient grpc = new GrpcJavaClient(serve.socket())) {
      WatchRecorder watch = new WatchRecorder();
      grpc.watch(WatchRequest.newBuilder().setClientName("checkout").build(), watch);
      await().atMost(Duration.ofSeconds(10)).until(() -> !watch.events().isEmpty());
      // An ADS client that NACKed, as the xDS server records it.
      SyncState ads =
          serve
              .server()
              .sidecars()
              .open(Protocol.ADS, new PeerIds(1000, 4711), List.of("lds", "rds", "cds", "eds"));
      ads.named("sidecar~10.0.0.9~cart");
      ads.subscribed(3);
      // Published before the stream opened: behind since it opened, not since the publish.
      ads.sent(3, 9, 0, System.currentTimeMillis() - 12_000);
      ads.nacked(3, "no endpoint " + "x".repeat(200));
      String version = Long.toString(watch.version());

      Cli.Result result = run("get clients");

      assertThat(result.exitCode()).isZero();
      List<String> lines = result.out().lines().toList();
      assertThat(lines.get(0))
          .matches("PROTOCOL +UID +PID +NAME +SUBSCRIBED +SENT/ACKED +BEHIND +LAST NACK");
      assertThat(lines.get(1))
          .matches(
              "ads +1000 +4711 +sidecar~10\\.0\\.0\\.9~cart +3 +eds 9/0 +\\d+ms +eds: no"
                  + " endpoint x{48}\\.\\.\\.");
      assertThat(lines.get(2))
          .matches(
              "watch +\\S+ +\\S+ +checkout +1 +services "
                  + version
                  + "/"
                  + version
                  + " +0s +<none>");
      assertThat(lines.get(3)).isEqualTo("2 of 2 streams listed; 0 behind by more than 5s.");

      Cli.Result json = run("get clients -o json --limit 1");
      assertThat(json.exitCode()).isZero();
      JsonObject answer = new JsonObject(json.out());
      assertThat(answer.getInteger("total")).isEqualTo(2);
      assertThat(answer.getBoolean("truncated")).isTrue();
      assertThat(answer.getJsonArray("clients").getJsonObject(0).getString("node_id"))
          .isEqualTo("sidecar~10.0.0.9~cart");
      ads.closed();
    }
  }

  @Test
  void aLimitOutOfRangeIsAUsageError() {
    Cli.Result result = run("get clients --limit 0");

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err()).contains("--limit must be from 1 to 500");
  }

  @Test
  void getLatencyPrintsTheQuantilesOfThePropagation() {
    Cli.Result none = run("get latency");
    assertThat(none.exitCode()).isZero();
    assertThat(none.out()).contains("samples:   0").contains("No sample yet");

    SyncState watch =
        serve.server().sidecars().open(Protocol.WATCH, PeerIds.UNKNOWN, List.of("services"));
    long now = System.currentTimeMillis();
    for (int i = 0; i < 95; i++) {
      watch.delivered(0, i + 1, now - 180); // (100 ms, 250 ms]
    }
    for (int i = 95; i < 100; i++) {
      watch.delivered(0, i + 1, now - 1_500); // (1 s, 2 s]: the top 5 %
    }
    watch.closed();

    Cli.Result result = run("get latency");
    assertThat(result.exitCode()).isZero();
    List<String> lines = result.out().lines().toList();
    assertThat(lines.get(1)).isEqualTo("samples:   100");
    assertThat(lines.get(2)).matches("p50: +1\\d\\dms");
    assertThat(lines.get(3)).matches("p99: +1\\.\\ds");

    JsonObject json = new JsonObject(run("get latency -o json").out());
    assertThat(json.getString("count")).isEqualTo("100");
    assertThat(json.getString("p99")).matches("1\\.\\d+s");
  }
}
