package dev.routesync;

import static dev.routesync.testing.Slices.slice;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.routesync.api.v1.ListResponse;
import dev.routesync.api.v1.StatusResponse;
import dev.routesync.testing.AgentHarness;
import dev.routesync.testing.GrpcJavaClient;
import dev.routesync.testing.MockCluster;
import dev.routesync.testing.Slices.Pod;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The API server stays up but loses etcd: its watches stay open and silent, so only its readiness
 * check tells. The agent then says stale, as for a broken connection, after {@code --relist-after}
 * (300 ms here), keeps serving the same table, and is fresh again once the server reaches etcd.
 */
class StorageOutageTest {

  private static final Duration CONVERGE = Duration.ofSeconds(15);

  @Test
  void aServerWithoutStorageTurnsTheTableStaleUntilItsStorageIsBack() throws Exception {
    try (MockCluster cluster = new MockCluster()) {
      cluster.apply(
          slice("shop", "web-a", "web", true, 8080, List.of(Pod.ready("p1", "10.0.0.1"))));
      try (AgentHarness agent = AgentHarness.start(cluster.url());
          GrpcJavaClient grpc = new GrpcJavaClient(agent.socket())) {
        await().atMost(CONVERGE).until(() -> grpc.status().getConnected());
        ListResponse fresh = grpc.list("");
        assertThat(fresh.getStale()).isFalse();

        cluster.storageDown(true);
        await().atMost(CONVERGE).until(() -> grpc.status().getStale());
        StatusResponse down = grpc.status();
        assertThat(down.getConnected()).isFalse();
        assertThat(down.getTrust()).isEqualTo(StatusResponse.Trust.SYNCED);
        ListResponse stale = grpc.list("");
        assertThat(stale.getStale()).isTrue();
        assertThat(stale.getServicesList()).isEqualTo(fresh.getServicesList());

        cluster.storageDown(false);
        await().atMost(CONVERGE).until(() -> !grpc.status().getStale());
        assertThat(grpc.status().getConnected()).isTrue();
        assertThat(grpc.list("").getServicesList()).isEqualTo(fresh.getServicesList());
      }
    }
  }
}
