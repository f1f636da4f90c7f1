package dev.routesync;

import static dev.routesync.testing.Slices.slice;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.routesync.api.v1.ServiceEndpoints;
import dev.routesync.api.v1.WatchEvent;
import dev.routesync.api.v1.WatchRequest;
import dev.routesync.testing.AgentHarness;
import dev.routesync.testing.GrpcJavaClient;
import dev.routesync.testing.MockCluster;
import dev.routesync.testing.Slices.Pod;
import dev.routesync.testing.WatchRecorder;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A sidecar's view: grpc-java on the agent's socket while the mock API server changes. */
class GrpcEndToEndTest {

  private static final Duration WAIT = Duration.ofSeconds(10);

  @Test
  void watchFollowsTheClusterAndResumesAfterAReconnect() throws Exception {
    try (MockCluster cluster = new MockCluster()) {
      cluster.apply(slice("shop", "web-a", "web", true, 8080, List.of(pod(1), pod(2))));
      cluster.apply(slice("shop", "api-a", "api", true, 8080, List.of(pod(5))));
      AgentHarness agent = AgentHarness.start(cluster.url());
      try (GrpcJavaClient grpc = new GrpcJavaClient(agent.socket())) {
        assertThat(grpc.resolve("shop", "web").getEndpointsCount()).isEqualTo(2);

        WatchRecorder watcher = new WatchRecorder();
        grpc.watch(WatchRequest.newBuilder().setNamespace("shop").build(), watcher);
        await().atMost(WAIT).until(() -> watcher.events().size() == 1);
        assertThat(watcher.events().get(0).getReset()).isTrue();
        assertThat(watcher.state()).containsOnlyKeys("shop/api", "shop/web");

        cluster.apply(slice("shop", "web-a", "web", true, 8080, List.of(pod(1), pod(2), pod(3))));
        await().atMost(WAIT).until(() -> watcher.state().get("shop/web").getEndpointsCount() == 3);
        WatchEvent delta = watcher.events().get(watcher.events().size() - 1);
        assertThat(delta.getReset()).isFalse();
        assertThat(delta.getUpsertedList())
            .extracting(ServiceEndpoints::getName)
            .containsExactly("web");

        // The sidecar goes away; meanwhile api is deleted. It resumes from what it had applied.
        long applied = watcher.version();
        cluster.delete(slice("shop", "api-a", "api", true, 8080, List.of()));
        await().atMost(WAIT).until(() -> agent.service("shop", "api").isEmpty());
        WatchRecorder resumed = new WatchRecorder();
        grpc.watch(
            WatchRequest.newBuilder().setNamespace("shop").setResumeFromVersion(applied).build(),
            resumed);
        await().atMost(WAIT).until(() -> resumed.events().size() == 1);
        WatchEvent first = resumed.events().get(0);
        assertThat(first.getReset()).isFalse();
        assertThat(first.getUpsertedCount()).isZero();
        assertThat(first.getRemovedList()).extracting(r -> r.getName()).containsExactly("api");
      } finally {
        cluster.close(); // before the agent: see MockCluster#url
        agent.close();
      }
    }
  }

  private static Pod pod(int n) {
    return Pod.ready("pod-" + n, "10.0.0." + n);
  }
}
