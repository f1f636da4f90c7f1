package dev.routesync;

import static dev.routesync.testing.Slices.slice;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.routesync.config.AgentConfig;
import dev.routesync.kube.WatchSettings;
import dev.routesync.table.Port;
import dev.routesync.table.RoutingTable;
import dev.routesync.table.ServiceKey;
import dev.routesync.testing.AgentHarness;
import dev.routesync.testing.Http1;
import dev.routesync.testing.MockCluster;
import dev.routesync.testing.Slices;
import dev.routesync.testing.Slices.Pod;
import dev.routesync.testing.TcpProxy;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The watch-hang watchdog end to end: a watch connection that stays open while nothing arrives is
 * replaced by a new generation after {@code --watch-silence}; bookmarks, which a real API server
 * sends about once a minute and the CRUD mock only on request, keep a quiet healthy watch alive.
 * Both table watches (EndpointSlices and Services) are checked: they share {@code ResourceWatch},
 * and so does the drift detector's Pods watch.
 */
@Timeout(120)
class WatchSilenceTest {

  private static final Duration SILENCE = Duration.ofSeconds(2);
  private static final ServiceKey WEB = new ServiceKey("shop", "web");
  private static final ServiceKey API = new ServiceKey("shop", "api");
  private static final List<String> KINDS = List.of("EndpointSlice", "Service");

  @Test
  void aBlackHoledWatchIsRestartedAndTheChangesMadeMeanwhileArrive() throws Exception {
    try (MockCluster cluster = new MockCluster();
        TcpProxy proxy = new TcpProxy(cluster.port())) {
      cluster.apply(slice("shop", "web-a", "web", true, 8080, List.of(pod(1), pod(2))));
      cluster.apply(slice("shop", "api-a", "api", true, 8080, List.of(pod(5))));
      apply(cluster, service("web", "http"));
      apply(cluster, service("api", "http"));
      cluster.sendBookmarksEvery(SILENCE.dividedBy(4)); // a healthy server's rhythm, compressed

      try (AgentHarness agent =
          AgentHarness.startWith(proxy.url(), WatchSilenceTest::shortSilence, freePort())
              .cutOnClose(proxy)) {
        assertThat(agent.ips("shop", "web")).containsExactly("10.0.0.1", "10.0.0.2");
        assertThat(agent.service("shop", "api").orElseThrow().servicePorts())
            .containsExactly(new Port("http", 80, "TCP"));
        // Healthy and quiet: bookmarks for longer than a silence, and no restart.
        double[] before = quietWithBookmarks(agent, 5);

        // Both watches' connections go quiet, open; then the server changes one object of each.
        proxy.blackHoleOpenConnections();
        long blackHoledAt = System.nanoTime();
        cluster.apply(slice("shop", "web-a", "web", true, 8080, List.of(pod(1), pod(2), pod(3))));
        apply(cluster, service("api", "grpc"));

        // Within the silence and one relist. A relist's list may first take a pooled keep-alive
        // connection the hole swallowed too: that costs one request timeout (5 s here) and a
        // retry, as it would against a real stuck path.
        await()
            .atMost(SILENCE.plusSeconds(20))
            .untilAsserted(
                () -> {
                  assertThat(agent.ips("shop", "web"))
                      .containsExactly("10.0.0.1", "10.0.0.2", "10.0.0.3");
                  assertThat(agent.service("shop", "api").orElseThrow().servicePorts())
                      .containsExactly(new Port("grpc", 80, "TCP"));
                });
        Duration caughtUp = Duration.ofNanos(System.nanoTime() - blackHoledAt);
        assertThat(caughtUp).isGreaterThanOrEqualTo(SILENCE); // nothing got through the hole

        // The watchdog did it, not the connectivity check: the connection never looked down.
        String metrics = metrics(agent);
        for (int i = 0; i < KINDS.size(); i++) {
          assertThat(sample(metrics, restartsSeries(KINDS.get(i))))
              .as("restarts of the %s watch", KINDS.get(i))
              .isGreaterThanOrEqualTo(before[i] + 1);
        }
        assertThat(sample(metrics, "routesync_relists_total{reason=\"silent\"}"))
            .isGreaterThanOrEqualTo(2.0);
        assertThat(sample(metrics, "routesync_relists_total{reason=\"outage\"}")).isZero();

        // No Service was ever published empty or missing on the way.
        for (RoutingTable published : agent.published()) {
          for (ServiceKey key : List.of(WEB, API)) {
            assertThat(published.get(key))
                .as("%s at version %d", key, published.version())
                .hasValueSatisfying(s -> assertThat(s.endpoints()).isNotEmpty());
          }
        }
      }
    }
  }

  @Test
  void bookmarksKeepAQuietWatchAliveAndWithoutThemItIsRelistedPublishingNothing() throws Exception {
    try (MockCluster cluster = new MockCluster()) {
      cluster.apply(slice("shop", "web-a", "web", true, 8080, List.of(pod(1), pod(2))));
      apply(cluster, service("web", "http"));
      // A bookmark every quarter of the silence: a healthy server's rhythm, compressed.
      cluster.sendBookmarksEvery(SILENCE.dividedBy(4));

      try (AgentHarness agent =
          AgentHarness.startWith(cluster.url(), WatchSilenceTest::shortSilence, 0)) {
        RoutingTable synced = agent.table();
        // Nothing changes on the server: bookmarks spanning three silences, only bookmarks.
        double[] before = quietWithBookmarks(agent, 12);
        double relists = agent.counter("routesync.batches", "cause", "relist");

        // The server stops sending bookmarks: each quiet watch is now taken for hung and
        // relisted, which finds nothing new and publishes nothing (the mock's case in every test
        // with a short silence).
        cluster.stopBookmarks();
        await()
            .atMost(SILENCE.plusSeconds(20))
            .until(
                () ->
                    restarts(agent, KINDS.get(0)) > before[0]
                        && restarts(agent, KINDS.get(1)) > before[1]);
        await()
            .atMost(Duration.ofSeconds(20))
            .until(() -> agent.counter("routesync.batches", "cause", "relist") >= relists + 2);
        assertThat(agent.table()).isSameAs(synced);
        cluster.close(); // before the agent: see MockCluster#url
      }
    }
  }

  /**
   * Waits until each table watch has seen {@code count} more bookmarks than when it saw its first,
   * and checks that no watch was restarted in between; returns the restarts so far, by kind.
   *
   * <p>Counted from the first bookmark seen, not from the start: on a cold JVM on a loaded machine
   * (load 18 on 2 cores here) the first generation of the run sometimes handled nothing from its
   * watch, no replayed object and no bookmark, for more than the test's 2 s silence (later
   * generations, warm, never did; fabric8 notes that a cold Jackson can take that long), and a
   * watch that hears nothing for a silence is rightly restarted. Production's silence is minutes.
   */
  private static double[] quietWithBookmarks(AgentHarness agent, int count) {
    await().atMost(Duration.ofSeconds(30)).until(() -> allBookmarksAtLeast(agent, new double[2]));
    double[] first = new double[KINDS.size()];
    double[] restarts = new double[KINDS.size()];
    for (int i = 0; i < KINDS.size(); i++) {
      first[i] = bookmarks(agent, KINDS.get(i)) + count;
      restarts[i] = restarts(agent, KINDS.get(i));
    }
    await()
        .atMost(SILENCE.multipliedBy(count / 4 + 1).plusSeconds(20))
        .until(() -> allBookmarksAtLeast(agent, first));
    for (int i = 0; i < KINDS.size(); i++) {
      assertThat(restarts(agent, KINDS.get(i)))
          .as("restarts of the %s watch while bookmarks came", KINDS.get(i))
          .isEqualTo(restarts[i]);
    }
    return restarts;
  }

  /** Each table watch (in KINDS order) has seen more than {@code floor} bookmarks. */
  private static boolean allBookmarksAtLeast(AgentHarness agent, double[] floor) {
    for (int i = 0; i < KINDS.size(); i++) {
      if (bookmarks(agent, KINDS.get(i)) <= floor[i]) {
        return false;
      }
    }
    return true;
  }

  private static double bookmarks(AgentHarness agent, String kind) {
    return agent.counter("routesync.watch.bookmarks", "kind", kind);
  }

  /** The harness's configuration with a short --watch-silence (the flag's floor is 2m). */
  private static AgentConfig shortSilence(AgentConfig config) {
    WatchSettings watch = config.watch();
    return config.withWatch(
        new WatchSettings(
            watch.namespaces(),
            watch.labelSelector(),
            watch.relistAfter(),
            watch.resync(),
            watch.backoffMin(),
            watch.backoffMax(),
            watch.connectivityCheck(),
            SILENCE));
  }

  private static double restarts(AgentHarness agent, String kind) {
    return agent.counter("routesync.watch.restarts", "kind", kind, "reason", "silent");
  }

  private static String restartsSeries(String kind) {
    return "routesync_watch_restarts_total{kind=\"" + kind + "\",reason=\"silent\"}";
  }

  private static String metrics(AgentHarness agent) throws Exception {
    return Http1.get("http://127.0.0.1:" + agent.agent().adminPort() + "/metrics").body();
  }

  /** The value of one series in a Prometheus scrape; fails when the series is not there. */
  private static double sample(String scrape, String series) {
    return scrape
        .lines()
        .filter(line -> line.startsWith(series + " "))
        .map(line -> Double.parseDouble(line.substring(series.length() + 1)))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no series " + series + " in /metrics"));
  }

  private static Service service(String name, String portName) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace("shop")
        .withName(name)
        .addToLabels(Slices.MESH_LABEL, "true")
        .endMetadata()
        .withNewSpec()
        .addToSelector("app", name)
        .addNewPort()
        .withName(portName)
        .withPort(80)
        .withTargetPort(new IntOrString(8080))
        .endPort()
        .endSpec()
        .build();
  }

  private static void apply(MockCluster cluster, Service service) {
    cluster.client().resource(service).createOr(NonDeletingOperation::update);
  }

  private static Pod pod(int n) {
    return Pod.ready("pod-" + n, "10.0.0." + n);
  }

  private static int freePort() throws Exception {
    try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return probe.getLocalPort();
    }
  }
}
