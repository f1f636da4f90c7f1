package dev.routesync;

import static dev.routesync.testing.Slices.slice;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.routesync.api.v1.ListResponse;
import dev.routesync.config.AgentConfig;
import dev.routesync.config.Source;
import dev.routesync.drift.DriftSettings;
import dev.routesync.kube.WatchSettings;
import dev.routesync.state.StateSettings;
import dev.routesync.table.TableTrust;
import dev.routesync.testing.AgentHarness;
import dev.routesync.testing.GrpcJavaClient;
import dev.routesync.testing.MockCluster;
import dev.routesync.testing.Slices;
import dev.routesync.testing.Slices.Pod;
import dev.routesync.testing.TcpProxy;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.vertx.core.Future;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A warm start serves the restored table before the Kubernetes side of the agent (its client, the
 * watches, the drift detector, the admin listener) is built: that part is not needed to serve it,
 * and on a restarted node it is the slow part. Here building the Kubernetes client is held open,
 * and the socket must already answer with the restored table, flagged stale.
 */
class EarlyServingTest {

  private static final Duration CONVERGE = Duration.ofSeconds(30);
  private static final Duration SERVED_WITHIN = Duration.ofSeconds(10);

  @TempDir Path stateDir;
  @TempDir Path socketDir;

  @Test
  void theRestoredTableIsServedWhileTheKubernetesClientIsStillBeingBuilt() throws Exception {
    Path stateFile = stateDir.resolve("state").resolve("table.bin");
    UnaryOperator<AgentConfig> persist =
        config ->
            config.withState(new StateSettings(Optional.of(stateFile), Duration.ofMillis(100)));
    try (MockCluster cluster = new MockCluster();
        TcpProxy proxy = new TcpProxy(cluster.port())) {
      cluster.client().resource(service("web")).createOr(NonDeletingOperation::update);
      cluster.apply(
          slice("shop", "web-a", "web", true, 8080, List.of(Pod.ready("p1", "10.0.0.1"))));
      try (AgentHarness first = AgentHarness.startWith(proxy.url(), persist, 0).cutOnClose(proxy)) {
        await().atMost(CONVERGE).until(() -> first.table().serviceCount() == 1);
      } // the proxy is cut first: the API server is down from here on

      HeldClientConfig held = new HeldClientConfig(proxy.url());
      AgentConfig config = persist.apply(config(socketDir.resolve("rs.sock")));
      CompletableFuture<Future<Agent>> starting =
          CompletableFuture.supplyAsync(() -> Agent.start(config, held));
      Agent agent = null;
      try (GrpcJavaClient grpc = new GrpcJavaClient(config.socket())) {
        assertThat(held.reached.await(SERVED_WITHIN.toSeconds(), TimeUnit.SECONDS))
            .as("the agent builds its Kubernetes client")
            .isTrue();
        ListResponse answer =
            await()
                .atMost(SERVED_WITHIN)
                .pollInterval(Duration.ofMillis(10))
                .ignoreExceptions()
                .until(() -> grpc.list(""), response -> response.getServicesCount() == 1);

        assertThat(held.release.getCount()).as("the client is still being built").isOne();
        assertThat(answer.getServices(0).getName()).isEqualTo("web");
        assertThat(answer.getStale()).as("restored, not yet confirmed by a list").isTrue();
      } finally {
        held.release.countDown();
        agent = starting.get(20, TimeUnit.SECONDS).await(20, TimeUnit.SECONDS);
      }
      try {
        assertThat(agent.freshness().level()).isEqualTo(TableTrust.Level.RESTORED);
        assertThat(agent.readiness().isReady()).isTrue();
      } finally {
        agent.stop().await(20, TimeUnit.SECONDS);
      }
    }
  }

  /**
   * Credentials for {@code url} whose first read, made when the agent builds its Kubernetes client
   * from them, waits until the test releases it (at most a minute, so a failing test ends).
   */
  private static final class HeldClientConfig extends Config {
    final CountDownLatch reached = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);

    HeldClientConfig(String url) {
      super(/* autoConfigure= */ false);
      setMasterUrl(url);
      setRequestTimeout(5000);
      setConnectionTimeout(2000);
    }

    @Override
    public String getMasterUrl() {
      reached.countDown();
      try {
        release.await(60, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return super.getMasterUrl();
    }
  }

  private static AgentConfig config(Path socket) {
    WatchSettings watch =
        new WatchSettings(
            List.of(),
            "mesh-managed=true",
            Duration.ofSeconds(10),
            Duration.ZERO,
            Duration.ofMillis(50),
            Duration.ofMillis(400),
            Duration.ofMillis(25));
    return new AgentConfig(
            Source.ENDPOINTSLICES,
            Optional.empty(),
            watch,
            AgentHarness.FAST,
            socket,
            "127.0.0.1",
            0,
            "node-a")
        .withDrift(new DriftSettings(false, DriftSettings.DEFAULT_GRACE));
  }

  private static io.fabric8.kubernetes.api.model.Service service(String name) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace("shop")
        .withName(name)
        .addToLabels(Slices.MESH_LABEL, "true")
        .endMetadata()
        .withNewSpec()
        .addToSelector("app", name)
        .addNewPort()
        .withName("http")
        .withPort(80)
        .withTargetPort(new IntOrString("http"))
        .endPort()
        .endSpec()
        .build();
  }
}
