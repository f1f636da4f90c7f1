package dev.routesync.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.routesync.api.v1.ServiceRef;
import dev.routesync.api.v1.WatchRequest;
import dev.routesync.testing.WatchRecorder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * B1: the real Deployment, ReplicaSet and EndpointSlice controllers churn one Service (scale 3 to
 * 150 to 0, a rolling update of 150), and at every quiet point the agent's table is exactly the
 * ready set of the real slices: no lost update, no ghost, the slices the controller split at 100
 * endpoints merged. It publishes fewer versions than the controller wrote slices.
 */
@Timeout(value = 8, unit = TimeUnit.MINUTES)
class ChurnIT {

  private static final String APP = "churn";

  /** A rollout of 150 Pods on this control plane and two cores; far more than it takes. */
  private static final Duration ROLLOUT = Duration.ofMinutes(3);

  /** From the slices' last write to the agent's table: one debounce and a flush, with slack. */
  private static final Duration CONVERGE = Duration.ofSeconds(15);

  @TempDir Path dir;
  @RegisterExtension final ClusterNamespace ns = new ClusterNamespace("churn");

  @Test
  void atEveryQuietPointTheTableIsTheReadySetOfTheRealSlices() throws Exception {
    ns.client().services().resource(Workloads.service(ns.name(), APP)).create();
    ns.client()
        .apps()
        .deployments()
        .resource(Workloads.deployment(ns.name(), APP, 3, "http"))
        .create();

    AtomicInteger sliceWrites = new AtomicInteger();
    try (AgentProcess agent =
            AgentProcess.start(ns.cluster(), dir, ns.cluster().kubeconfig(), ns.name())
                .awaitReady();
        Watch slices = countSliceWrites(sliceWrites)) {
      quietPoint(agent, 3);

      WatchRecorder versions = new WatchRecorder();
      agent
          .grpc()
          .watch(
              WatchRequest.newBuilder()
                  .addServices(ServiceRef.newBuilder().setNamespace(ns.name()).setName(APP))
                  .build(),
              versions);
      await().atMost(Duration.ofSeconds(10)).until(() -> !versions.events().isEmpty());
      int writesBefore = sliceWrites.get();

      scale(150);
      List<EndpointSlice> at150 = quietPoint(agent, 150);
      assertThat(at150).as("the controller splits 150 endpoints over slices").hasSizeGreaterThan(1);

      ns.client()
          .apps()
          .deployments()
          .inNamespace(ns.name())
          .withName(APP)
          .edit(
              d -> {
                d.getSpec()
                    .getTemplate()
                    .getSpec()
                    .getContainers()
                    .get(0)
                    .setImage("registry.example/churn:2");
                return d;
              });
      quietPoint(agent, 150);

      scale(0);
      quietPoint(agent, 0);

      int agentVersions = versions.events().size() - 1; // the first is the snapshot
      int controllerWrites = sliceWrites.get() - writesBefore;
      assertThat(versions.ended()).as("the Watch stream is still open").isNull();
      assertThat(agentVersions)
          .as("versions published for %d slice writes", controllerWrites)
          .isPositive()
          .isLessThan(controllerWrites);
      System.out.printf(
          "ChurnIT: %d slice writes by the controller, %d versions published%n",
          controllerWrites, agentVersions);
    }
  }

  private void scale(int replicas) {
    ns.client().apps().deployments().inNamespace(ns.name()).withName(APP).scale(replicas);
  }

  /**
   * Waits for the rollout to finish and the controller to write its slices, then for the agent to
   * publish exactly their ready set. Returns the slices.
   */
  private List<EndpointSlice> quietPoint(AgentProcess agent, int replicas) {
    Set<String> pods = ReadySets.awaitSliced(ns.client(), ns.name(), APP, ROLLOUT, replicas);
    List<EndpointSlice> slices = ReadySets.slices(ns.client(), ns.name(), APP);
    await()
        .atMost(CONVERGE)
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () ->
                assertThat(Published.now(agent, ns.name(), APP).orElse(Set.of())).isEqualTo(pods));
    return slices;
  }

  private Watch countSliceWrites(AtomicInteger writes) {
    return ns.client()
        .discovery()
        .v1()
        .endpointSlices()
        .inNamespace(ns.name())
        .withLabel("kubernetes.io/service-name", APP)
        .watch(
            new Watcher<>() {
              @Override
              public void eventReceived(Action action, EndpointSlice slice) {
                writes.incrementAndGet();
              }

              @Override
              public void onClose(WatcherException cause) {}
            });
  }
}
