package dev.routesync.testing;

import static dev.routesync.testing.Slices.slice;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ListOptions;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * With {@link MockCluster#withFaithfulWatchResume}, a watch from the version of a list is not sent
 * the listed objects again (the plain mock replays them as ADDED), but is sent what changed after
 * it; a watch from no version still gets the current state as ADDED.
 */
class WatchResumesTest {

  // The mock's event loop can stall for ~10 s under a cut watch (MockCluster).
  private static final Duration WAIT = Duration.ofSeconds(45);

  @Test
  void aWatchFromAListsVersionGetsOnlyWhatChangedAfterIt() throws Exception {
    watchFromAListsVersion(new MockCluster().withFaithfulWatchResume());
  }

  @Test
  void soItDoesWithExpiringResumes() throws Exception {
    // Lists there carry the point they were served at, not their newest item's version.
    watchFromAListsVersion(MockCluster.expiringResumes().withFaithfulWatchResume());
  }

  private static void watchFromAListsVersion(MockCluster mock) throws Exception {
    try (MockCluster cluster = mock;
        TcpProxy proxy = new TcpProxy(cluster.port());
        KubernetesClient client = client(proxy)) {
      EndpointSlice changed = slice("shop", "changed-a", "changed", true, 8080, List.of());
      EndpointSlice deleted = slice("shop", "deleted-a", "deleted", true, 8080, List.of());
      cluster.apply(slice("shop", "kept-a", "kept", true, 8080, List.of()));
      cluster.apply(changed);
      cluster.apply(deleted);
      String listed =
          client
              .discovery()
              .v1()
              .endpointSlices()
              .inNamespace("shop")
              .list()
              .getMetadata()
              .getResourceVersion();

      Events resumed = new Events();
      watch(client, new ListOptionsBuilder().withResourceVersion(listed), resumed);
      cluster.apply(slice("shop", "new-a", "new", true, 8080, List.of()));
      // The mock sends a watch's events in order, any replay first: by now it would be here.
      await().atMost(WAIT).until(() -> resumed.seen().contains("ADDED new-a"));
      changed.getMetadata().getLabels().put("tier", "gold");
      cluster.apply(changed);
      cluster.delete(deleted);

      await()
          .atMost(WAIT)
          .until(
              () -> resumed.seen().containsAll(List.of("MODIFIED changed-a", "DELETED deleted-a")));
      assertThat(resumed.seen())
          .doesNotContain("ADDED kept-a", "ADDED changed-a", "ADDED deleted-a");
      assertThat(cluster.replaysDropped()).isEqualTo(3);

      // From no version ("start at the current state"), the replay is the state: it stays.
      Events fresh = new Events();
      watch(client, new ListOptionsBuilder(), fresh);
      await()
          .atMost(WAIT)
          .until(
              () ->
                  fresh
                      .seen()
                      .containsAll(List.of("ADDED kept-a", "ADDED changed-a", "ADDED new-a")));
      assertThat(fresh.seen()).doesNotContain("ADDED deleted-a");
    }
  }

  @Test
  void withoutTheOptionTheMockReplaysTheListedObjects() throws Exception {
    try (MockCluster cluster = new MockCluster();
        TcpProxy proxy = new TcpProxy(cluster.port());
        KubernetesClient client = client(proxy)) {
      cluster.apply(slice("shop", "kept-a", "kept", true, 8080, List.of()));
      String listed =
          client
              .discovery()
              .v1()
              .endpointSlices()
              .inNamespace("shop")
              .list()
              .getMetadata()
              .getResourceVersion();
      Events resumed = new Events();
      watch(client, new ListOptionsBuilder().withResourceVersion(listed), resumed);
      await().atMost(WAIT).until(() -> resumed.seen().contains("ADDED kept-a"));
      assertThat(cluster.replaysDropped()).isZero();
    }
  }

  @Test
  void readsTheObjectsVersionOfAnEventAsTheMockWritesIt() {
    String event =
        "{\"object\":{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"labels\":"
            + "{\"resourceVersion\":\"99\"},\"name\":\"a\",\"resourceVersion\":\"7\"},"
            + "\"spec\":{\"resourceVersion\":\"98\"}},\"type\":\"ADDED\"}";
    assertThat(WatchResumes.objectResourceVersion(event)).isEqualTo(7);
    assertThat(WatchResumes.isReplay(event, 7)).isTrue();
    assertThat(WatchResumes.isReplay(event, 6)).isFalse();
    assertThat(WatchResumes.isReplay(event.replace("ADDED", "MODIFIED"), 7)).isFalse();
    assertThat(WatchResumes.isReplay("{\"object\":{},\"type\":\"ADDED\"}", 7)).isFalse();
  }

  /** Closed with the client (closing a watch cleanly can stall the mock: MockCluster). */
  private static Watch watch(KubernetesClient client, ListOptionsBuilder options, Events events) {
    ListOptions built = options.withTimeoutSeconds(60L).build();
    return client.discovery().v1().endpointSlices().inNamespace("shop").watch(built, events);
  }

  /** "ACTION name" of each event a watch received, in order. */
  private static final class Events implements Watcher<EndpointSlice> {

    private final List<String> seen = new CopyOnWriteArrayList<>();

    List<String> seen() {
      return List.copyOf(seen);
    }

    @Override
    public void eventReceived(Action action, EndpointSlice slice) {
      seen.add(action + " " + slice.getMetadata().getName());
    }

    @Override
    public void onClose(WatcherException cause) {}
  }

  private static KubernetesClient client(TcpProxy proxy) {
    return new KubernetesClientBuilder()
        .withConfig(
            new ConfigBuilder(Config.empty())
                .withMasterUrl(proxy.url())
                .withRequestTimeout(30_000)
                .withConnectionTimeout(5_000)
                .build())
        .build();
  }
}
