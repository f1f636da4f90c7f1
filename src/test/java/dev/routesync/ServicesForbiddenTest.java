package dev.routesync;

import static dev.routesync.testing.Slices.slice;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import dev.routesync.kube.ServiceEventSink;
import dev.routesync.kube.watch.ResourceWatch;
import dev.routesync.table.RoutingTable;
import dev.routesync.testing.AgentHarness;
import dev.routesync.testing.LogCapture;
import dev.routesync.testing.MockCluster;
import dev.routesync.testing.Slices.Pod;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An agent whose RBAC lacks {@code services} cannot know the per-port counts: it stays unready, and
 * its log says why, rather than publish counts that would miss the seed-002 incident. Once the
 * ClusterRole is fixed it becomes ready without a restart.
 */
@Timeout(60)
class ServicesForbiddenTest {

  private static final Duration CONVERGE = Duration.ofSeconds(20);

  @Test
  void staysUnreadyAndSaysWhyUntilServicesCanBeListed() throws Exception {
    try (MockCluster cluster = new MockCluster();
        LogCapture log = new LogCapture(ResourceWatch.class.getName(), Level.WARN)) {
      cluster.apply(slice("shop", "web-a", "web", true, 8080, List.of(Pod.ready("w", "10.0.0.1"))));
      cluster.forbidServices(true);

      try (AgentHarness agent = AgentHarness.launch(cluster.url(), Duration.ofSeconds(10))) {
        // The slice watch may have synced, but its half of the first list is held: nothing is
        // published until the Services watch has synced too.
        await()
            .atMost(CONVERGE)
            .until(
                () ->
                    log.lines().stream()
                            .filter(line -> line.contains("Service generation"))
                            .filter(line -> line.contains("services is forbidden"))
                            .count()
                        >= 2);
        assertThat(agent.agent().readiness().isReady()).isFalse();
        assertThat(agent.agent().initialSync().isComplete()).isFalse();
        assertThat(agent.published()).isEmpty();
        assertThat(agent.service("shop", "web")).isEmpty();

        cluster.forbidServices(false);

        await().atMost(CONVERGE).until(() -> agent.agent().readiness().isReady());
        assertThat(agent.service("shop", "web").orElseThrow().portCounts()).isNotEmpty();
        cluster.close(); // before the agent: see MockCluster#url
      }
    }
  }

  @Test
  void theFirstListsOfBothWatchesArePublishedAsOneVersionWithThePorts() throws Exception {
    // The slices list first (the Services are forbidden until then): before the coalescer held
    // the first lists, that published a version without the Services' ports, then another.
    try (MockCluster cluster = new MockCluster();
        LogCapture log = new LogCapture(ServiceEventSink.class.getName(), Level.INFO)) {
      cluster
          .client()
          .resource(
              new ServiceBuilder()
                  .withNewMetadata()
                  .withNamespace("shop")
                  .withName("web")
                  .addToLabels("mesh-managed", "true")
                  .endMetadata()
                  .withNewSpec()
                  .addNewPort()
                  .withName("http")
                  .withPort(80)
                  .withTargetPort(new IntOrString("http"))
                  .endPort()
                  .endSpec()
                  .build())
          .createOr(NonDeletingOperation::update);
      cluster.apply(slice("shop", "web-a", "web", true, 8080, List.of(Pod.ready("w", "10.0.0.1"))));
      cluster.forbidServices(true);

      try (AgentHarness agent = AgentHarness.launch(cluster.url(), Duration.ofSeconds(10))) {
        await()
            .atMost(CONVERGE)
            .until(() -> log.lines().stream().anyMatch(line -> line.contains("synced")));
        cluster.forbidServices(false);
        agent.awaitInitialSync();

        List<RoutingTable> published = agent.published();
        assertThat(published).hasSize(1);
        assertThat(published.get(0).get(new dev.routesync.table.ServiceKey("shop", "web")))
            .hasValueSatisfying(web -> assertThat(web.servicePorts()).isNotEmpty());
        cluster.close(); // before the agent: see MockCluster#url
      }
    }
  }
}
