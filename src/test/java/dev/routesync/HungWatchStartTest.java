package dev.routesync;

import static dev.routesync.testing.Slices.slice;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.routesync.kube.WatchSettings;
import dev.routesync.sync.CoalescerSettings;
import dev.routesync.testing.AgentHarness;
import dev.routesync.testing.FaultProxy;
import dev.routesync.testing.MockCluster;
import dev.routesync.testing.Slices.Pod;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A relist whose watch handshake is never answered (a stuck proxy, a black-holed connection made
 * while the new generation was starting) must not freeze the watch for good. Found by the fault
 * suite: while such a generation was pending, no other could start, the silence watchdog waits for
 * no list to be under way, and the outage check saw the old generation "watching".
 */
class HungWatchStartTest {

  private static final Duration SILENCE = Duration.ofSeconds(1);

  @Test
  void aGenerationThatDoesNotStartWatchingWithinTheWatchSilenceIsRetried() throws Exception {
    try (MockCluster cluster = MockCluster.expiringResumes();
        FaultProxy proxy = new FaultProxy(cluster.port())) {
      cluster.apply(
          slice("shop", "web-a", "web", true, 8080, List.of(Pod.ready("p1", "10.0.0.1"))));
      WatchSettings watch =
          new WatchSettings(
              List.of(),
              WatchSettings.DEFAULT_LABEL_SELECTOR,
              Duration.ofMillis(300),
              Duration.ZERO,
              Duration.ofMillis(20),
              Duration.ofMillis(200),
              Duration.ofMillis(25),
              SILENCE);
      try (AgentHarness agent =
          AgentHarness.launchWith(
              proxy.url(),
              new CoalescerSettings(Duration.ZERO, Duration.ofMillis(50), 5000),
              config -> config.withWatch(watch))) {
        agent.awaitInitialSync();
        assertThat(agent.ips("shop", "web")).containsExactly("10.0.0.1");

        // Every watch handshake from now on hangs; the watches drop, and outlast relist-after,
        // so each kind starts a new generation, which lists and then hangs in its handshake.
        double outages = agent.counter("routesync.relists", "reason", "outage");
        proxy.holdUpgrades(true);
        proxy.dropClients();
        await()
            .atMost(Duration.ofSeconds(20))
            .until(() -> agent.counter("routesync.relists", "reason", "outage") >= outages + 2);
        // Two resumptions, then the two new generations' handshakes: all held.
        await().atMost(Duration.ofSeconds(20)).until(() -> proxy.heldUpgrades() >= 4);

        // The proxy unsticks; a change made now must arrive, within a silence and a relist.
        proxy.holdUpgrades(false);
        cluster.apply(
            slice("shop", "web-a", "web", true, 8080, List.of(Pod.ready("p2", "10.0.0.2"))));
        await()
            .atMost(Duration.ofSeconds(20))
            .until(() -> agent.ips("shop", "web").equals(List.of("10.0.0.2")));
        await().atMost(Duration.ofSeconds(20)).until(agent::connected);
        proxy.cut(); // before the agent stops: the mock sees a drop, not a clean close
      }
    }
  }
}
