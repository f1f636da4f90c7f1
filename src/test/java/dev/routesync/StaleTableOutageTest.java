package dev.routesync;

import static dev.routesync.testing.Slices.slice;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.routesync.api.v1.ListResponse;
import dev.routesync.api.v1.StatusResponse;
import dev.routesync.api.v1.WatchEvent;
import dev.routesync.api.v1.WatchRequest;
import dev.routesync.table.RoutingTable;
import dev.routesync.testing.AgentHarness;
import dev.routesync.testing.GrpcJavaClient;
import dev.routesync.testing.MockCluster;
import dev.routesync.testing.Slices.Pod;
import dev.routesync.testing.TcpProxy;
import dev.routesync.testing.UdsHttp;
import dev.routesync.testing.WatchRecorder;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The API server goes away for longer than {@code --relist-after} (300 ms here): the agent keeps
 * serving the same table and says it is stale, in gRPC (List, Watch, Status), HTTP and the metrics;
 * once it is back and relisted, the table is fresh again. A stale table is never dropped.
 */
class StaleTableOutageTest {

  private static final Duration CONVERGE = Duration.ofSeconds(15);
  // The mock's event loop can block for a long time when its watches are cut (see MockCluster).
  private static final Duration MOCK_STALLS_TWICE = Duration.ofSeconds(45);

  @Test
  void aTableTurnsStaleWithoutBeingDroppedAndFreshAgainAfterReconnect() throws Exception {
    try (MockCluster cluster = new MockCluster();
        TcpProxy proxy = new TcpProxy(cluster.port())) {
      cluster.apply(slice("shop", "web-a", "web", true, 8080, List.of(pod(1), pod(2))));
      cluster.apply(slice("shop", "api-a", "api", true, 8080, List.of(pod(5))));
      Instant started = Instant.now();
      try (AgentHarness agent = AgentHarness.start(proxy.url()).cutOnClose(proxy);
          GrpcJavaClient grpc = new GrpcJavaClient(agent.socket());
          UdsHttp http = new UdsHttp(agent.socket())) {
        await().atMost(CONVERGE).until(() -> grpc.status().getConnected());
        ListResponse fresh = grpc.list("");
        assertThat(fresh.getStale()).isFalse();
        assertThat(fresh.getServicesList()).hasSize(2);
        Instant syncedAt =
            Instant.ofEpochSecond(fresh.getSyncedAt().getSeconds(), fresh.getSyncedAt().getNanos());
        assertThat(syncedAt)
            .isAfterOrEqualTo(started.minusSeconds(1))
            .isBeforeOrEqualTo(Instant.now());
        assertThat(gauge(agent, "routesync.table.stale")).isZero();
        assertThat(gauge(agent, "routesync.last.sync.timestamp"))
            .isGreaterThanOrEqualTo(started.getEpochSecond() - 1);
        WatchRecorder watcher = new WatchRecorder();
        grpc.watch(WatchRequest.getDefaultInstance(), watcher);
        await().atMost(CONVERGE).until(() -> !watcher.events().isEmpty());
        assertThat(watcher.events().get(0).getStale()).isFalse();
        RoutingTable beforeOutage = agent.table();

        long cutAt = System.nanoTime();
        proxy.cut();
        await().atMost(CONVERGE).until(() -> grpc.status().getStale());
        long staleAfterMs = (System.nanoTime() - cutAt) / 1_000_000;
        StatusResponse down = grpc.status();
        assertThat(down.getTrust()).isEqualTo(StatusResponse.Trust.SYNCED);
        assertThat(down.getConnected()).isFalse();
        assertThat(
                down.getDisconnectedFor().getSeconds() * 1_000
                    + down.getDisconnectedFor().getNanos() / 1_000_000)
            .isGreaterThan(300);
        // The same services, the same table, still served: stale is said, never acted on.
        ListResponse stale = grpc.list("");
        assertThat(stale.getStale()).isTrue();
        assertThat(stale.getServicesList()).isEqualTo(fresh.getServicesList());
        assertThat(agent.table()).isSameAs(beforeOutage);
        assertThat(http.get("/v1/services").json().getBoolean("stale")).isTrue();
        assertThat(http.get("/v1/services/shop/web").json().getBoolean("stale")).isTrue();
        assertThat(gauge(agent, "routesync.table.stale")).isEqualTo(1);
        assertThat(agent.agent().readiness().isReady()).isTrue();
        // The subscriber is told, at the version it has, with nothing to apply.
        await()
            .atMost(CONVERGE)
            .until(() -> watcher.events().stream().anyMatch(WatchEvent::getStale));
        WatchEvent turnedStale =
            watcher.events().stream().filter(WatchEvent::getStale).findFirst().orElseThrow();
        assertThat(turnedStale.getVersion()).isEqualTo(beforeOutage.version());
        assertThat(turnedStale.getUpsertedList()).isEmpty();
        assertThat(turnedStale.getRemovedList()).isEmpty();
        assertThat(watcher.state()).hasSize(2);

        long restoredAt = System.nanoTime();
        proxy.restore(cluster.port());
        await().atMost(MOCK_STALLS_TWICE).until(() -> !grpc.status().getStale());
        System.out.printf(
            "staleness: stale %d ms after the cut (relist-after 300 ms), fresh %d ms after the"
                + " reconnect%n",
            staleAfterMs, (System.nanoTime() - restoredAt) / 1_000_000);
        ListResponse back = grpc.list("");
        assertThat(back.getStale()).isFalse();
        assertThat(back.getServicesList()).isEqualTo(fresh.getServicesList());
        assertThat(gauge(agent, "routesync.table.stale")).isZero();
        await()
            .atMost(CONVERGE)
            .until(() -> !watcher.events().get(watcher.events().size() - 1).getStale());
        assertThat(watcher.state()).hasSize(2);
        assertThat(watcher.ended()).isNull();
      }
    }
  }

  private static double gauge(AgentHarness agent, String name) {
    return agent.agent().registry().get(name).gauge().value();
  }

  private static Pod pod(int n) {
    return Pod.ready("pod-" + n, "10.0.0." + n);
  }
}
