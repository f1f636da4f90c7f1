package dev.routesync.serve;

import static dev.routesync.testing.Slices.slice;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.routesync.api.v1.WatchEvent;
import dev.routesync.api.v1.WatchRequest;
import dev.routesync.testing.AgentHarness;
import dev.routesync.testing.GrpcJavaClient;
import dev.routesync.testing.MockCluster;
import dev.routesync.testing.Slices.Pod;
import dev.routesync.testing.TcpProxy;
import dev.routesync.testing.UdsHttp;
import dev.routesync.testing.WatchRecorder;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A real agent whose API server is unreachable at start has no table it may serve: every API says
 * "not synced yet" instead of answering from the empty placeholder table, which would tell each
 * sidecar to drop all its routes. Once the first list succeeds, all of them serve it.
 */
@Timeout(90)
class UnsyncedAgentTest {

  private static final Duration CONVERGE = Duration.ofSeconds(15);

  @Test
  void everyApiSaysNotSyncedUntilTheFirstListThenServesIt() throws Exception {
    try (MockCluster cluster = new MockCluster();
        TcpProxy proxy = new TcpProxy(cluster.port())) {
      cluster.apply(slice("shop", "web-a", "web", true, 8080, List.of(Pod.ready("w", "10.0.0.1"))));
      proxy.cut();
      try (AgentHarness agent =
              AgentHarness.launch(proxy.url(), Duration.ofMillis(300)).cutOnClose(proxy);
          GrpcJavaClient grpc = new GrpcJavaClient(agent.socket())) {
        await()
            .atMost(CONVERGE)
            .until(() -> agent.counter("routesync.relists", "reason", "failure") >= 1);

        assertNotSynced(() -> grpc.list(""));
        assertNotSynced(() -> grpc.list("shop"));
        assertNotSynced(() -> grpc.resolve("shop", "web"));

        UdsHttp http = new UdsHttp(agent.socket());
        for (String uri :
            List.of("/v1/services", "/v1/services?namespace=shop", "/v1/services/shop/web")) {
          UdsHttp.Reply reply = http.get(uri);
          assertThat(reply.status()).as(uri).isEqualTo(503);
          assertThat(reply.contentType()).as(uri).isEqualTo("application/json");
          assertThat(reply.json().getInteger("status")).as(uri).isEqualTo(503);
          assertThat(reply.json().getString("error")).as(uri).startsWith("not synced yet");
        }

        // A sidecar reconnecting after an agent restart resumes from a version it saw before.
        WatchRecorder resuming = new WatchRecorder();
        grpc.watch(WatchRequest.newBuilder().setResumeFromVersion(42).build(), resuming);
        WatchRecorder fresh = new WatchRecorder();
        grpc.watch(WatchRequest.getDefaultInstance(), fresh);
        await().atMost(CONVERGE).until(() -> agent.agent().api().watchStreams() == 2);
        // Held open through more failed lists, without a word: no empty reset, no end.
        double failures = agent.counter("routesync.relists", "reason", "failure");
        await()
            .atMost(CONVERGE)
            .until(() -> agent.counter("routesync.relists", "reason", "failure") >= failures + 2);
        assertThat(resuming.events()).isEmpty();
        assertThat(fresh.events()).isEmpty();
        assertThat(resuming.ended()).isNull();
        assertThat(agent.table().serviceCount()).isZero();

        proxy.restore(cluster.port());
        agent.awaitInitialSync();

        // The first message of each stream is the synced table, never the empty one.
        for (WatchRecorder watcher : List.of(resuming, fresh)) {
          await().atMost(CONVERGE).until(() -> !watcher.events().isEmpty());
          WatchEvent first = watcher.events().get(0);
          assertThat(first.getReset()).isTrue();
          assertThat(first.getUpsertedList())
              .singleElement()
              .satisfies(
                  web -> {
                    assertThat(web.getName()).isEqualTo("web");
                    assertThat(web.getEndpoints(0).getIp()).isEqualTo("10.0.0.1");
                  });
        }
        assertThat(grpc.resolve("shop", "web").getEndpoints(0).getIp()).isEqualTo("10.0.0.1");
        assertThat(grpc.list("").getServicesCount()).isEqualTo(1);
        assertThat(http.get("/v1/services").status()).isEqualTo(200);
      }
    }
  }

  private static void assertNotSynced(Runnable call) {
    assertThatThrownBy(call::run)
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            error -> {
              assertThat(error.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
              assertThat(error.getStatus().getDescription()).startsWith("not synced yet");
            });
  }
}
