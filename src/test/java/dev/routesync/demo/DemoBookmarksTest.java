package dev.routesync.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.Service;
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
import org.junit.jupiter.api.Timeout;

/**
 * The demo's pretend cluster sends its watches bookmarks, as a real API server does: a quiet demo
 * watch is healthy, and the agent must not take it for a hung one and warn every --watch-silence.
 */
class DemoBookmarksTest {

  @Test
  @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aQuietWatchOnTheDemoClusterGetsBookmarks() {
    List<Watcher.Action> seen = new CopyOnWriteArrayList<>();
    try (DemoCluster cluster = DemoCluster.start(Duration.ofMillis(200));
        KubernetesClient client = clientOf(cluster);
        Watch watch =
            client
                .services()
                .inNamespace("shop")
                .watch(
                    new ListOptionsBuilder().withAllowWatchBookmarks(true).build(),
                    new Watcher<Service>() {
                      @Override
                      public void eventReceived(Action action, Service service) {
                        seen.add(action);
                      }

                      @Override
                      public void onClose(WatcherException cause) {}
                    })) {
      // No churn: nothing changes on the Services, as in a demo that runs for an hour.
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> seen.stream().filter(Watcher.Action.BOOKMARK::equals).count() >= 2);

      assertThat(cluster.bookmarksSent()).isGreaterThanOrEqualTo(2);
    }
  }

  @Test
  void aRealApiServersRhythmByDefault() {
    assertThat(DemoCluster.BOOKMARK_PERIOD).isEqualTo(Duration.ofMinutes(1));
  }

  private static KubernetesClient clientOf(DemoCluster cluster) {
    Config config =
        new ConfigBuilder(Config.empty())
            .withMasterUrl(cluster.url())
            .withRequestTimeout(5_000)
            .withConnectionTimeout(5_000)
            .build();
    return new KubernetesClientBuilder().withConfig(config).build();
  }
}
