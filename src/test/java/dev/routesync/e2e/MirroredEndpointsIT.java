package dev.routesync.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Endpoints;
import io.fabric8.kubernetes.api.model.EndpointsBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Service without a selector whose Endpoints a team writes itself (an external database, a legacy
 * VM): the real EndpointSlice mirroring controller copies them into slices, labels included, and
 * the agent serves them as it serves a controller's slices, following a change to the custom
 * Endpoints.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class MirroredEndpointsIT {

  private static final String NAME = "legacy-db";

  /** From the Endpoints' write to the agent's table: the mirroring controller, then one flush. */
  private static final Duration CONVERGE = Duration.ofSeconds(30);

  @TempDir Path dir;
  @RegisterExtension final ClusterNamespace ns = new ClusterNamespace("mirror");

  @Test
  void customEndpointsAreMirroredIntoSlicesTheAgentServes() throws Exception {
    Service service = Workloads.service(ns.name(), NAME);
    service.getSpec().setSelector(null);
    service.getSpec().getPorts().get(0).setTargetPort(null);
    ns.client().services().resource(service).create();
    ns.client()
        .endpoints()
        .resource(endpoints("198.18.250.1", "198.18.250.2", "198.18.250.3"))
        .create();

    try (AgentProcess agent =
        AgentProcess.start(ns.cluster(), dir, ns.cluster().kubeconfig(), ns.name()).awaitReady()) {
      await()
          .atMost(CONVERGE)
          .pollInterval(Duration.ofMillis(200))
          .ignoreExceptions()
          .untilAsserted(
              () ->
                  assertThat(ReadySets.fromAgent(agent.grpc().resolve(ns.name(), NAME)))
                      .isEqualTo(
                          Set.of("198.18.250.1:5432", "198.18.250.2:5432", "198.18.250.3:5432")));
      List<EndpointSlice> slices = ReadySets.slices(ns.client(), ns.name(), NAME);
      assertThat(slices)
          .as("slices of the mirroring controller")
          .isNotEmpty()
          .allSatisfy(
              slice ->
                  assertThat(slice.getMetadata().getLabels())
                      .containsEntry(
                          "endpointslice.kubernetes.io/managed-by",
                          "endpointslicemirroring-controller.k8s.io"));

      // One address leaves the custom Endpoints: the mirror follows, and so does the agent.
      ns.client()
          .endpoints()
          .inNamespace(ns.name())
          .withName(NAME)
          .patch(
              PatchContext.of(PatchType.JSON_MERGE),
              "{\"subsets\":[{\"addresses\":[{\"ip\":\"198.18.250.1\"},{\"ip\":\"198.18.250.3\"}],"
                  + "\"ports\":[{\"name\":\"http\",\"port\":5432,\"protocol\":\"TCP\"}]}]}");
      await()
          .atMost(CONVERGE)
          .pollInterval(Duration.ofMillis(200))
          .untilAsserted(
              () ->
                  assertThat(ReadySets.fromAgent(agent.grpc().resolve(ns.name(), NAME)))
                      .isEqualTo(Set.of("198.18.250.1:5432", "198.18.250.3:5432")));
    }
  }

  /** Endpoints as a team writes them: opted in by the same label, which the mirror copies. */
  private Endpoints endpoints(String... ips) {
    EndpointsBuilder builder =
        new EndpointsBuilder()
            .withNewMetadata()
            .withNamespace(ns.name())
            .withName(NAME)
            .withLabels(Map.of(Workloads.OPT_IN_LABEL, "true"))
            .endMetadata();
    var subset = builder.addNewSubset();
    for (String ip : ips) {
      subset.addNewAddress().withIp(ip).endAddress();
    }
    return subset
        .addNewPort()
        .withName("http")
        .withPort(5432)
        .withProtocol("TCP")
        .endPort()
        .endSubset()
        .build();
  }
}
