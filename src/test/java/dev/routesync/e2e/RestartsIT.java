package dev.routesync.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.routesync.api.v1.ServiceRef;
import dev.routesync.api.v1.StatusResponse;
import dev.routesync.api.v1.WatchRequest;
import dev.routesync.testing.WatchRecorder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * B6: a control plane component is killed under a synced agent and started again. While it is down
 * the agent serves its last table, flagged stale (Status and List say {@code stale}; a Watch stream
 * gets an event saying so); once it is back the agent converges within its relist budget, a change
 * made right after the restart included, and no version it published over the episode empties the
 * Service. Also: an agent restarted while the API server is down serves the table it persisted,
 * flagged stale.
 */
@Timeout(value = 8, unit = TimeUnit.MINUTES)
class RestartsIT {

  private static final String APP = "web";
  private static final Duration ROLLOUT = Duration.ofMinutes(1);

  /** Staleness shows after --relist-after (2 s here) plus the 500 ms connectivity sampling. */
  private static final Duration STALE = Duration.ofSeconds(15);

  /** The relist backoff tops out at 30 s (jittered); then a list and a debounce. */
  private static final Duration RELIST_BUDGET = Duration.ofSeconds(45);

  @TempDir Path dir;

  /** Each test names its own namespace ("restart", "warm"), so it makes it in its body. */
  @RegisterExtension final ClusterNamespace ns = ClusterNamespace.createdByTest();

  /**
   * Runs before the extension deletes the namespace: that needs the API server. No-ops unless a
   * test stopped midway; the next test needs the whole control plane.
   */
  @AfterEach
  void startWhatATestStopped() {
    if (ns.cluster() == null) {
      return; // skipped: no control plane
    }
    ns.cluster().script("start", "etcd");
    ns.cluster().script("start", "kube-apiserver");
    Workloads.awaitControllersServing(ns.client());
  }

  @Test
  void apiServerKilled() throws Exception {
    episode("kube-apiserver");
  }

  // With etcd killed the API server keeps the agent's watch open and silent (its watch cache
  // holds its watchers): only its /readyz etcd check says so, which the agent reads.
  @Test
  void etcdKilled() throws Exception {
    episode("etcd");
  }

  private void episode(String component) throws Exception {
    ns.create("restart");
    Set<String> before = deploy(2);
    try (AgentProcess agent = startAgent(dir)) {
      awaitServed(agent, before, false, Duration.ofSeconds(30));
      WatchRecorder versions = new WatchRecorder();
      agent
          .grpc()
          .watch(
              WatchRequest.newBuilder()
                  .addServices(ServiceRef.newBuilder().setNamespace(ns.name()).setName(APP))
                  .build(),
              versions,
              Duration.ofMinutes(4));
      await().atMost(Duration.ofSeconds(10)).until(() -> !versions.events().isEmpty());

      try {
        ns.cluster().script("stop", component, "KILL");
        awaitServed(agent, before, true, STALE);
        assertThat(agent.grpc().list(ns.name()).getStale()).as("List says stale").isTrue();
      } finally {
        ns.cluster().script("start", component);
      }
      // A change right after the restart; etcd's return may take the API server a moment.
      await()
          .atMost(Duration.ofSeconds(30))
          .ignoreExceptions()
          .until(
              () ->
                  ns.client().apps().deployments().inNamespace(ns.name()).withName(APP).scale(3)
                      != null);
      Set<String> after = ReadySets.awaitSliced(ns.client(), ns.name(), APP, ROLLOUT, 3);
      awaitServed(agent, after, false, RELIST_BUDGET);

      // Status says fresh as soon as the table is; a Watch stream hears it on the next staleness
      // check (ApiServer.STALE_CHECK, 500 ms), so its last version is awaited, not read at once.
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () -> {
                List<Published.Version> seen = Published.history(versions.events(), ns.name(), APP);
                assertThat(seen.get(seen.size() - 1).stale()).as("and fresh again").isFalse();
              });
      List<Published.Version> history = Published.history(versions.events(), ns.name(), APP);
      assertThat(history)
          .as("every version published over the episode")
          .allSatisfy(
              v ->
                  assertThat(v.endpoints())
                      .as("version %d", v.version())
                      .isPresent()
                      .get()
                      .isIn(before, after));
      assertThat(history).as("the stream said stale").anyMatch(Published.Version::stale);
      assertThat(versions.ended()).as("the Watch stream is still open").isNull();
    }
  }

  @Test
  void agentRestartedWhileTheApiServerIsDownServesItsPersistedTable() throws Exception {
    ns.create("warm");
    Set<String> before = deploy(2);
    Path agentDir = dir.resolve("agent");
    try (AgentProcess first = startAgent(agentDir)) {
      awaitServed(first, before, false, Duration.ofSeconds(30));
      assertThat(first.stop()).as("the first agent's exit code").isZero();
    }
    try {
      ns.cluster().script("stop", "kube-apiserver", "KILL");
      try (AgentProcess second = startAgent(agentDir)) {
        await()
            .atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofMillis(250))
            .ignoreExceptions()
            .untilAsserted(
                () ->
                    assertThat(second.grpc().status().getTrust())
                        .isEqualTo(StatusResponse.Trust.RESTORED));
        awaitServed(second, before, true, STALE);
        ns.cluster().script("start", "kube-apiserver");
        awaitServed(second, before, false, RELIST_BUDGET);
        assertThat(second.grpc().status().getTrust()).isEqualTo(StatusResponse.Trust.SYNCED);
      }
    } finally {
      ns.cluster().script("start", "kube-apiserver");
    }
  }

  private AgentProcess startAgent(Path agentDir) throws Exception {
    return AgentProcess.start(
        ns.cluster(), agentDir, ns.cluster().kubeconfig(), ns.name(), "--relist-after", "2s");
  }

  private Set<String> deploy(int replicas) {
    ns.client().services().resource(Workloads.service(ns.name(), APP)).create();
    ns.client()
        .apps()
        .deployments()
        .resource(Workloads.deployment(ns.name(), APP, replicas, "http"))
        .create();
    return ReadySets.awaitSliced(ns.client(), ns.name(), APP, ROLLOUT, replicas);
  }

  /** Waits until the agent serves exactly {@code endpoints} for the Service, stale or not. */
  private void awaitServed(
      AgentProcess agent, Set<String> endpoints, boolean stale, Duration budget) {
    await()
        .atMost(budget)
        .pollInterval(Duration.ofMillis(250))
        // The socket is not there until the agent has bound it.
        .ignoreExceptionsInstanceOf(io.grpc.StatusRuntimeException.class)
        .untilAsserted(
            () -> {
              assertThat(Published.now(agent, ns.name(), APP)).contains(endpoints);
              assertThat(agent.grpc().status().getStale()).as("stale").isEqualTo(stale);
            });
  }
}
