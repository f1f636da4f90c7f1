package dev.routesync.testing;

import static dev.routesync.testing.Slices.slice;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A mock with expiring resumes sends what a real API server would when a watch resumes after a
 * deletion it cannot replay (410 Gone), so fabric8's informer relists and drops the deleted object,
 * where the plain mock leaves it as a ghost.
 */
class ExpiredResumesTest {

  // The mock's event loop can stall for ~10 s under a cut watch (MockCluster).
  private static final Duration WAIT = Duration.ofSeconds(45);

  @Test
  void aWatchResumedAfterADeletionIsAnsweredGoneAndTheInformerDropsTheObject() throws Exception {
    try (MockCluster cluster = MockCluster.expiringResumes();
        TcpProxy proxy = new TcpProxy(cluster.port());
        KubernetesClient client = client(proxy)) {
      EndpointSlice kept = slice("shop", "kept-a", "kept", true, 8080, List.of());
      EndpointSlice deleted = slice("shop", "gone-a", "gone", true, 8080, List.of());
      cluster.apply(kept);
      cluster.apply(deleted);
      SharedIndexInformer<EndpointSlice> informer =
          client.discovery().v1().endpointSlices().inAnyNamespace().runnableInformer(0);
      informer.exceptionHandler((started, error) -> true);
      informer.start().toCompletableFuture().get(20, TimeUnit.SECONDS);
      await().atMost(WAIT).until(informer::isWatching);
      assertThat(names(informer)).containsExactlyInAnyOrder("kept-a", "gone-a");

      // A blip: the watch breaks, an object is deleted meanwhile, the watch resumes.
      proxy.cut();
      cluster.delete(deleted);
      proxy.restore(cluster.port());

      await().atMost(WAIT).until(() -> names(informer).equals(List.of("kept-a")));
      assertThat(cluster.expiredResumes()).isPositive();
      // Relisted from a stamped version: the next resume is not answered 410 again.
      await().atMost(WAIT).until(informer::isWatching);
      int expired = cluster.expiredResumes();
      cluster.apply(slice("shop", "new-a", "new", true, 8080, List.of()));
      await().atMost(WAIT).until(() -> names(informer).contains("new-a"));
      assertThat(cluster.expiredResumes()).isEqualTo(expired);
      informer.stop();
    }
  }

  private static List<String> names(SharedIndexInformer<EndpointSlice> informer) {
    return informer.getStore().list().stream()
        .map(s -> s.getMetadata().getName())
        .sorted()
        .toList();
  }

  private static KubernetesClient client(TcpProxy proxy) {
    return new KubernetesClientBuilder()
        .withConfig(
            new ConfigBuilder(Config.empty())
                .withMasterUrl(proxy.url())
                .withRequestTimeout(30_000)
                .withConnectionTimeout(5_000)
                .withWatchReconnectInterval(50)
                .build())
        .build();
  }
}
