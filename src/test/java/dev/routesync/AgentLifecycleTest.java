package dev.routesync;

import static dev.routesync.testing.Slices.slice;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.routesync.api.v1.WatchRequest;
import dev.routesync.config.AgentConfig;
import dev.routesync.config.Source;
import dev.routesync.kube.WatchSettings;
import dev.routesync.sync.CoalescerSettings;
import dev.routesync.testing.AgentHarness;
import dev.routesync.testing.GrpcJavaClient;
import dev.routesync.testing.MockCluster;
import dev.routesync.testing.Slices.Pod;
import dev.routesync.testing.WatchRecorder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.grpc.Status;
import io.vertx.core.Future;
import io.vertx.junit5.Checkpoint;
import io.vertx.junit5.Timeout;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Agent}'s lifecycle in process: {@code start} and {@code stop} are Vert.x futures, checked
 * in their callbacks through the {@link VertxTestContext} (each test waits for its checkpoints
 * within a bound). A failed start releases what it had taken; a stop drains, fails readiness at
 * once, removes the socket, and may be called again. (The process's signal handling is {@link
 * ProcessSignalTest}'s.)
 */
@ExtendWith(VertxExtension.class)
@Timeout(value = 60, timeUnit = TimeUnit.SECONDS)
class AgentLifecycleTest {

  private static final Duration WITHIN = Duration.ofSeconds(30);

  @TempDir Path dir;

  private static AgentConfig config(Path socket, int adminPort) {
    return new AgentConfig(
        Source.ENDPOINTSLICES,
        Optional.empty(),
        WatchSettings.of(List.of(), "mesh-managed=true"),
        CoalescerSettings.defaults(),
        socket,
        "127.0.0.1",
        adminPort,
        "node-a");
  }

  private static Config kubeConfig(String url) {
    return new ConfigBuilder(Config.empty())
        .withMasterUrl(url)
        .withRequestTimeout(5000)
        .withConnectionTimeout(2000)
        .build();
  }

  /** Waits for every checkpoint of {@code testContext}; rethrows what failed it. */
  private static void awaitCompletion(VertxTestContext testContext) throws Throwable {
    assertThat(testContext.awaitCompletion(WITHIN.toMillis(), TimeUnit.MILLISECONDS))
        .as("completed within %s", WITHIN)
        .isTrue();
    if (testContext.failed()) {
      throw testContext.causeOfFailure();
    }
  }

  @Test
  void aStartThatFailsReleasesTheSocketSoTheNextAgentCanStart(VertxTestContext testContext)
      throws Throwable {
    Path socket = dir.resolve("rs.sock");
    Checkpoint failed = testContext.checkpoint();
    Checkpoint successorServed = testContext.checkpoint();
    MockCluster cluster = new MockCluster();
    Future<Agent> successor;
    boolean completed;
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      int port = taken.getLocalPort();
      successor =
          Agent.start(config(socket, port), kubeConfig(cluster.url()))
              .onComplete(
                  testContext.failing(
                      error ->
                          testContext.verify(
                              () -> {
                                assertThat(error)
                                    .hasMessageStartingWith(
                                        "admin listener 127.0.0.1:" + port + ": ");
                                // The socket listener had started: the failed start stopped it.
                                assertThat(socket).doesNotExist();
                                failed.flag();
                              })))
              // The single-instance guard was released too: a successor takes the same path.
              .recover(error -> Agent.start(config(socket, 0), kubeConfig(cluster.url())))
              .compose(next -> next.initialSync().map(next))
              .onComplete(
                  testContext.succeeding(
                      next ->
                          testContext.verify(
                              () -> {
                                assertThat(next.readiness().isReady()).isTrue();
                                assertThat(socket).exists();
                                successorServed.flag();
                              })));
      completed = testContext.awaitCompletion(WITHIN.toMillis(), TimeUnit.MILLISECONDS);
    } finally {
      cluster.close(); // before the agent stops: see MockCluster#url
    }
    // Whatever started is stopped, so no agent outlives the test; then the verdict.
    successor
        .transform(done -> done.succeeded() ? done.result().stop() : Future.succeededFuture())
        .await(WITHIN.toMillis(), TimeUnit.MILLISECONDS);
    assertThat(completed).as("completed within %s", WITHIN).isTrue();
    if (testContext.failed()) {
      throw testContext.causeOfFailure();
    }
  }

  @Test
  void stopFailsReadinessAtOnceEndsWatchesCleanlyRemovesTheSocketAndMayBeRepeated(
      VertxTestContext testContext) throws Throwable {
    Checkpoint stopped = testContext.checkpoint();
    Checkpoint stoppedAgain = testContext.checkpoint();
    AgentHarness harness;
    try (MockCluster cluster = new MockCluster()) {
      cluster.apply(slice("shop", "web-a", "web", true, 8080, List.of(Pod.ready("p", "10.0.0.1"))));
      harness = AgentHarness.start(cluster.url()); // started and synced, with test timings
    } // closed before the agent stops: see MockCluster#url
    Agent agent = harness.agent();
    Path socket = harness.socket();
    try (harness;
        GrpcJavaClient grpc = new GrpcJavaClient(socket)) {
      WatchRecorder watcher = new WatchRecorder();
      grpc.watch(WatchRequest.getDefaultInstance(), watcher);
      await().atMost(WITHIN).until(() -> watcher.events().size() == 1);
      assertThat(agent.readiness().isReady()).isTrue();

      Future<Void> stopping = agent.stop();
      // Before anything has drained: kubelet stops routing to this node at once.
      assertThat(agent.readiness().isReady()).isFalse();
      stopping
          .onComplete(
              testContext.succeeding(
                  ignored ->
                      testContext.verify(
                          () -> {
                            assertThat(agent.api().watchStreams()).isZero();
                            assertThat(socket).doesNotExist();
                            stopped.flag();
                          })))
          // Again once stopped (the harness stops it a third time as it closes).
          .compose(ignored -> agent.stop())
          .onComplete(testContext.succeeding(ignored -> stoppedAgain.flag()));
      awaitCompletion(testContext);
      // The sidecar saw a clean end (GOAWAY, then status OK), not a reset.
      await().atMost(WITHIN).until(() -> watcher.ended() != null);
      assertThat(watcher.ended().getCode()).isEqualTo(Status.Code.OK);
    }
  }
}
