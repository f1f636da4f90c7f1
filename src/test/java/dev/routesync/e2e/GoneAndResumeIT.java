package dev.routesync.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.routesync.api.v1.ServiceRef;
import dev.routesync.api.v1.WatchRequest;
import dev.routesync.testing.TcpProxy;
import dev.routesync.testing.WatchRecorder;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * B5: the agent is cut off from the API server (a relay it dials is cut) while a Service scales and
 * another is deleted, etcd is compacted past those changes and the API server restarts. When the
 * relay comes back the agent's watch resumes from a resourceVersion the server no longer has and
 * gets 410 Gone; it relists and its table is exact again (no ghost of the deleted Service), and no
 * version it published on the way empties or half-updates the Service that stayed. Its watches ask
 * for bookmarks, and it resumes from a bookmark's resourceVersion.
 *
 * <p>What yields the 410 on this server (v1.37): a restart of kube-apiserver. Its watch cache
 * starts at etcd's current revision, so any older resourceVersion is "too old" and the watch gets
 * an in-stream ERROR event with code 410, compacted or not. Compaction alone yields nothing: the
 * running server's watch cache still replays from memory what etcd compacted away.
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class GoneAndResumeIT {

  private static final String STAY = "stay";
  private static final String GONE = "gone";

  /** Not opted in: its slices move the EndpointSlice resourceVersion, unseen by the agent. */
  private static final String OTHER = "other";

  private static final Duration ROLLOUT = Duration.ofMinutes(1);

  /** A real API server sends a watch bookmark about once a minute while its version moves. */
  private static final Duration BOOKMARK = Duration.ofMinutes(2);

  /** fabric8 retries a broken watch 1 s doubling to 32 s; then a list and a debounce. */
  private static final Duration RECOVER = Duration.ofSeconds(60);

  @TempDir Path dir;
  @RegisterExtension final ClusterNamespace ns = new ClusterNamespace("gone");
  private TcpProxy relay;

  /** Runs before the extension deletes the namespace: that needs the API server. */
  @AfterEach
  void closeTheRelayAndStartTheApiServer() throws Exception {
    if (ns.cluster() == null) {
      return; // skipped: no control plane
    }
    try {
      if (relay != null) {
        relay.close();
      }
    } finally {
      ns.cluster().script("start", "kube-apiserver"); // a no-op unless the test stopped midway
      Workloads.awaitControllersServing(ns.client()); // the test restarted the API server
    }
  }

  @Test
  void afterGoneTheAgentRelistsToTheExactTableWithoutEverEmptyingIt() throws Exception {
    deploy(STAY, 2, true);
    deploy(GONE, 1, true);
    Set<String> stayBefore = ReadySets.awaitSliced(ns.client(), ns.name(), STAY, ROLLOUT, 2);
    Set<String> goneBefore = ReadySets.awaitSliced(ns.client(), ns.name(), GONE, ROLLOUT, 1);

    ApiServerLog apiLog = new ApiServerLog(ns.cluster());
    apiLog.logRequests();
    long sinceStart = apiLog.mark();
    relay = new TcpProxy(ns.cluster().apiPort());
    Path kubeconfig = ns.cluster().kubeconfigThrough(relay.port(), dir.resolve("relay.kubeconfig"));
    // --relist-after 1h: the agent resumes its watch after the outage instead of relisting on its
    // own, so what happens next is the server's answer to the resume. --resync 0: no anti-entropy
    // relist can clean up in its place.
    try (AgentProcess agent =
        AgentProcess.start(
                ns.cluster(),
                dir.resolve("agent"),
                kubeconfig,
                ns.name(),
                "--relist-after",
                "1h",
                "--resync",
                "0")
            .awaitReady()) {
      awaitPublished(agent, STAY, Optional.of(stayBefore));
      awaitPublished(agent, GONE, Optional.of(goneBefore));

      // Writes the agent's selector does not see, so only a bookmark can carry this version to it.
      deploy(OTHER, 1, false);
      ReadySets.awaitSliced(ns.client(), ns.name(), OTHER, ROLLOUT, 1);
      long unseen =
          ReadySets.slices(ns.client(), ns.name(), OTHER).stream()
              .mapToLong(slice -> Long.parseLong(slice.getMetadata().getResourceVersion()))
              .max()
              .orElseThrow();
      awaitServerBookmark(unseen);
      assertThat(agent.metric("routesync_watch_bookmarks_total", ""))
          .as("bookmarks the agent saw")
          .isPositive();

      WatchRecorder versions = new WatchRecorder();
      agent
          .grpc()
          .watch(
              WatchRequest.newBuilder()
                  .addServices(ServiceRef.newBuilder().setNamespace(ns.name()).setName(STAY))
                  .addServices(ServiceRef.newBuilder().setNamespace(ns.name()).setName(GONE))
                  .build(),
              versions,
              Duration.ofMinutes(4));
      await().atMost(Duration.ofSeconds(10)).until(() -> !versions.events().isEmpty());

      relay.cut();
      ns.client().apps().deployments().inNamespace(ns.name()).withName(STAY).scale(3);
      ns.client().services().inNamespace(ns.name()).withName(GONE).delete();
      ns.client().apps().deployments().inNamespace(ns.name()).withName(GONE).delete();
      Set<String> stayAfter = ReadySets.awaitSliced(ns.client(), ns.name(), STAY, ROLLOUT, 3);
      await().atMost(ROLLOUT).until(() -> ReadySets.slices(ns.client(), ns.name(), GONE).isEmpty());
      new EtcdGateway(ns.cluster()).compactToNow();
      ns.cluster().script("restart", "kube-apiserver");
      apiLog.logRequests();
      long sinceRestart = apiLog.mark();
      assertThat(Published.now(agent, ns.name(), STAY))
          .as("cut off, the agent still serves what it had")
          .contains(stayBefore);

      double gone = agent.metric("routesync_relists_total", "reason=\"gone\"");
      relay.restore(ns.cluster().apiPort());
      await()
          .atMost(RECOVER)
          .pollInterval(Duration.ofMillis(250))
          .until(() -> agent.metric("routesync_relists_total", "reason=\"gone\"") > gone);
      awaitPublished(agent, STAY, Optional.of(stayAfter));
      awaitPublished(agent, GONE, Optional.empty());
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> !versions.state().containsKey(ns.name() + "/" + GONE));

      List<Published.Version> stay = Published.history(versions.events(), ns.name(), STAY);
      assertThat(stay)
          .as("every version published over the episode, for the Service that stayed")
          .allSatisfy(
              v ->
                  assertThat(v.endpoints())
                      .as("version %d", v.version())
                      .isPresent()
                      .get()
                      .isIn(stayBefore, stayAfter));
      assertThat(stay.get(stay.size() - 1).endpoints()).contains(stayAfter);
      assertThat(versions.ended()).as("the Watch stream is still open").isNull();

      // The watch the cut ended, and the resume the restarted server answered 410.
      List<String> beforeCut = apiLog.watches(sinceStart, ns.name());
      List<String> resumed = apiLog.watches(sinceRestart, ns.name());
      assertThat(beforeCut).as("the agent's watches before the cut").isNotEmpty();
      assertThat(resumed).as("the agent's resumed watch, after the restart").isNotEmpty();
      assertThat(beforeCut).allMatch(uri -> uri.contains("allowWatchBookmarks=true"));
      assertThat(resumed).allMatch(uri -> uri.contains("allowWatchBookmarks=true"));
      assertThat(ApiServerLog.resourceVersion(resumed.get(0)))
          .as("the resume's resourceVersion: at least that of a slice the agent was never sent")
          .isGreaterThanOrEqualTo(unseen);
      System.out.printf(
          "GoneAndResumeIT: watches before the cut %s; resumed with %s (unseen writes from %d)%n",
          beforeCut, resumed, unseen);
    }
  }

  /** A Service (opted in or not) and its Deployment. */
  private void deploy(String name, int replicas, boolean optedIn) {
    Service service = Workloads.service(ns.name(), name);
    if (!optedIn) {
      service.getMetadata().getLabels().clear();
    }
    ns.client().services().resource(service).create();
    ns.client()
        .apps()
        .deployments()
        .resource(Workloads.deployment(ns.name(), name, replicas, "http"))
        .create();
  }

  /**
   * Waits until a bookmark at {@code unseen} or later reaches a watch of our own on the agent's
   * selector, started after the agent's. The server times bookmarks per watch, about a minute after
   * it starts, so by then the agent's older watch has had its own. (The agent's bookmark metric
   * alone is no proof: it counts a version that moved between its samples.) Our watch starts at a
   * fresh list's version, which the server's watch cache has reached; a watch from an older version
   * may be refused ("too large resource version") when the cache lags. If the server ends the
   * watch, it starts again; the causes are in the failure message.
   */
  private void awaitServerBookmark(long unseen) {
    AtomicLong bookmarked = new AtomicLong();
    List<String> closes = new CopyOnWriteArrayList<>();
    Instant deadline = Instant.now().plus(BOOKMARK);
    while (bookmarked.get() < unseen && Instant.now().isBefore(deadline)) {
      CountDownLatch closed = new CountDownLatch(1);
      var slices =
          ns.client()
              .discovery()
              .v1()
              .endpointSlices()
              .inNamespace(ns.name())
              .withLabel(Workloads.OPT_IN_LABEL, "true");
      String from = slices.list().getMetadata().getResourceVersion();
      try (Watch watch =
          slices.watch(
              new ListOptionsBuilder()
                  .withAllowWatchBookmarks(true)
                  .withResourceVersion(from)
                  .build(),
              new Watcher<EndpointSlice>() {
                @Override
                public void eventReceived(Action action, EndpointSlice slice) {
                  if (action == Action.BOOKMARK) {
                    long version = Long.parseLong(slice.getMetadata().getResourceVersion());
                    bookmarked.accumulateAndGet(version, Math::max);
                  }
                }

                @Override
                public void onClose(WatcherException cause) {
                  closes.add("from " + from + ": " + cause);
                  closed.countDown();
                }

                @Override
                public void onClose() {
                  closes.add("from " + from + ": closed");
                  closed.countDown();
                }
              })) {
        await()
            .atMost(Duration.between(Instant.now(), deadline).plusSeconds(1))
            .pollInterval(Duration.ofMillis(250))
            .until(() -> bookmarked.get() >= unseen || closed.getCount() == 0);
      } catch (ConditionTimeoutException timedOut) {
        break;
      }
    }
    assertThat(bookmarked.get())
        .as("newest bookmark within %s; watches ended: %s", BOOKMARK, closes)
        .isGreaterThanOrEqualTo(unseen);
  }

  private void awaitPublished(AgentProcess agent, String name, Optional<Set<String>> expected) {
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(() -> assertThat(Published.now(agent, ns.name(), name)).isEqualTo(expected));
  }
}
