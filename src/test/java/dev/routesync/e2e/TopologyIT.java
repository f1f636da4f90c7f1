package dev.routesync.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.routesync.api.v1.Endpoint;
import dev.routesync.api.v1.Topology;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraintBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointHints;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.ForNode;
import io.fabric8.kubernetes.api.model.discovery.v1.ForZone;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * B3: topology, as the real control plane writes it. Three Nodes in two zones (node-0 and node-2 in
 * zone-a, node-1 in zone-b), a Service with {@code spec.trafficDistribution} and one pod on every
 * Node. The real EndpointSlice controller writes each endpoint's zone and node and, for the traffic
 * distribution, its hints; the agent (as node-0) carries every endpoint with the zone and node of
 * its pod's Node.
 *
 * <p>The agent reads its zone from its own Node (node-0's {@code topology.kubernetes.io/zone}) and
 * decides as kube-proxy does: the table keeps every endpoint, and the Registry API's topology says
 * which of them this node's clients use ({@code selected}): zone-a's for PreferClose, node-0's for
 * PreferSameNode.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class TopologyIT {

  private static final String APP = "near";
  private static final String AGENT_NODE = "node-0";
  private static final Set<String> NODES = Set.of("node-0", "node-1", "node-2");
  private static final String ZONE_LABEL = "topology.kubernetes.io/zone";
  private static final Duration ROLLOUT = Duration.ofSeconds(60);
  private static final Duration CONVERGE = Duration.ofSeconds(15);

  /** Where an endpoint is: as the agent says, or as its pod and that pod's Node say. */
  record Placement(String ip, String node, String zone, String pod) {}

  /** An endpoint's hints as the real slices write them (empty lists when absent). */
  record Hints(String ip, List<String> forZones, List<String> forNodes) {}

  @TempDir Path dir;
  @RegisterExtension final ClusterNamespace ns = new ClusterNamespace("near");

  @Test
  void preferCloseHintsEachEndpointToItsZoneAndTheAgentCarriesZoneAndNode() throws Exception {
    List<Placement> pods = deploySpread("PreferClose");
    awaitHints(pods, true, false);
    try (AgentProcess agent = startAgent()) {
      awaitAgentCarries(agent, pods);
      // As node-0 (zone-a, read from its Node): zone-a's endpoints (node-0's and node-2's), as
      // kube-proxy routes when every ready endpoint has a zone hint.
      awaitDecision(
          agent,
          Topology.Mode.SAME_ZONE,
          pods.stream().filter(p -> "zone-a".equals(p.zone())).map(Placement::ip).toList());
    }
  }

  @Test
  void preferSameNodeHintsEachEndpointToItsNodeAndTheAgentCarriesZoneAndNode() throws Exception {
    List<Placement> pods = deploySpread("PreferSameNode");
    awaitHints(pods, true, true);
    try (AgentProcess agent = startAgent()) {
      awaitAgentCarries(agent, pods);
      // As node-0: node-0's endpoint only, as kube-proxy routes when every ready endpoint has a
      // node hint.
      awaitDecision(
          agent,
          Topology.Mode.SAME_NODE,
          pods.stream().filter(p -> AGENT_NODE.equals(p.node())).map(Placement::ip).toList());
    }
  }

  /**
   * Creates the Service with {@code trafficDistribution} and a Deployment with one pod per Node;
   * returns where each pod is, from the Pods and Nodes themselves.
   */
  private List<Placement> deploySpread(String trafficDistribution) {
    Service service = Workloads.service(ns.name(), APP);
    service.getSpec().setTrafficDistribution(trafficDistribution);
    ns.client().services().resource(service).create();
    assertThat(ns.client().services().inNamespace(ns.name()).withName(APP).get())
        .as("the API server keeps trafficDistribution")
        .extracting(s -> s.getSpec().getTrafficDistribution())
        .isEqualTo(trafficDistribution);

    Deployment deployment = Workloads.deployment(ns.name(), APP, NODES.size(), "http");
    // One pod on every Node: the scheduler may not put two on one while another has none.
    deployment
        .getSpec()
        .getTemplate()
        .getSpec()
        .setTopologySpreadConstraints(
            List.of(
                new TopologySpreadConstraintBuilder()
                    .withMaxSkew(1)
                    .withTopologyKey("kubernetes.io/hostname")
                    .withWhenUnsatisfiable("DoNotSchedule")
                    .withNewLabelSelector()
                    .withMatchLabels(Map.of("app", APP))
                    .endLabelSelector()
                    .build()));
    ns.client().apps().deployments().resource(deployment).create();
    Workloads.awaitRolledOut(ns.client(), ns.name(), APP, ROLLOUT);

    Map<String, String> zoneOfNode = new HashMap<>();
    for (Node node : ns.client().nodes().list().getItems()) {
      zoneOfNode.put(node.getMetadata().getName(), node.getMetadata().getLabels().get(ZONE_LABEL));
    }
    List<Placement> pods = new ArrayList<>();
    for (Pod pod :
        ns.client().pods().inNamespace(ns.name()).withLabel("app", APP).list().getItems()) {
      String node = pod.getSpec().getNodeName();
      pods.add(
          new Placement(
              pod.getStatus().getPodIP(), node, zoneOfNode.get(node), pod.getMetadata().getName()));
    }
    assertThat(pods).extracting(Placement::node).containsExactlyInAnyOrderElementsOf(NODES);
    assertThat(pods)
        .extracting(Placement::zone)
        .as("the Nodes' zones")
        .containsOnly("zone-a", "zone-b")
        .contains("zone-a", "zone-b");
    return pods;
  }

  /**
   * Waits until the real controller has written each pod's endpoint with its zone, node and hints:
   * {@code forZones} its own zone, {@code forNodes} its own node (or none).
   */
  private void awaitHints(List<Placement> pods, boolean forZones, boolean forNodes) {
    List<Hints> expected = new ArrayList<>();
    for (Placement pod : pods) {
      expected.add(
          new Hints(
              pod.ip(),
              forZones ? List.of(pod.zone()) : List.of(),
              forNodes ? List.of(pod.node()) : List.of()));
    }
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(250))
        .untilAsserted(
            () -> {
              List<EndpointSlice> slices = ReadySets.slices(ns.client(), ns.name(), APP);
              assertThat(hintsIn(slices))
                  .as("hints in the real slices")
                  .containsExactlyInAnyOrderElementsOf(expected);
              assertThat(placesIn(slices))
                  .as("zone and node in the real slices")
                  .containsExactlyInAnyOrderElementsOf(pods);
            });
  }

  /** The agent as {@value #AGENT_NODE}: AgentProcess always passes {@code --node-name node-0}. */
  private AgentProcess startAgent() throws Exception {
    return AgentProcess.start(
            ns.cluster(), dir.resolve("agent"), ns.cluster().kubeconfig(), ns.name())
        .awaitReady();
  }

  /** Waits until the agent serves every pod, each with its pod's name, Node and the Node's zone. */
  private void awaitAgentCarries(AgentProcess agent, List<Placement> pods) {
    await()
        .atMost(CONVERGE)
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () ->
                assertThat(placesServedBy(agent))
                    .as("the agent's endpoints, as %s", AGENT_NODE)
                    .containsExactlyInAnyOrderElementsOf(pods));
  }

  /**
   * Waits until the agent's decision for this node is {@code mode}, selecting exactly {@code ips}.
   */
  private void awaitDecision(AgentProcess agent, Topology.Mode mode, List<String> ips) {
    assertThat(ips).isNotEmpty();
    await()
        .atMost(CONVERGE)
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () -> {
              var service = agent.grpc().resolve(ns.name(), APP);
              assertThat(service.getTopology().getMode()).isEqualTo(mode);
              assertThat(service.getTopology().getNode()).isEqualTo(AGENT_NODE);
              assertThat(service.getTopology().getZone()).isEqualTo("zone-a");
              assertThat(
                      service.getEndpointsList().stream()
                          .filter(Endpoint::getSelected)
                          .map(Endpoint::getIp))
                  .containsExactlyInAnyOrderElementsOf(ips);
            });
  }

  private List<Placement> placesServedBy(AgentProcess agent) {
    List<Endpoint> endpoints;
    try {
      endpoints = agent.grpc().resolve(ns.name(), APP).getEndpointsList();
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
        return List.of();
      }
      throw e;
    }
    List<Placement> places = new ArrayList<>();
    for (Endpoint e : endpoints) {
      places.add(new Placement(e.getIp(), e.getNode(), e.getZone(), e.getPod()));
    }
    return places;
  }

  private static List<Placement> placesIn(List<EndpointSlice> slices) {
    List<Placement> places = new ArrayList<>();
    for (var endpoint : endpointsOf(slices)) {
      places.add(
          new Placement(
              endpoint.getAddresses().get(0),
              endpoint.getNodeName(),
              endpoint.getZone(),
              endpoint.getTargetRef() == null ? null : endpoint.getTargetRef().getName()));
    }
    return places;
  }

  private static List<Hints> hintsIn(List<EndpointSlice> slices) {
    List<Hints> hints = new ArrayList<>();
    for (var endpoint : endpointsOf(slices)) {
      Optional<EndpointHints> h = Optional.ofNullable(endpoint.getHints());
      hints.add(
          new Hints(
              endpoint.getAddresses().get(0),
              h.map(EndpointHints::getForZones).orElse(List.of()).stream()
                  .map(ForZone::getName)
                  .toList(),
              h.map(EndpointHints::getForNodes).orElse(List.of()).stream()
                  .map(ForNode::getName)
                  .toList()));
    }
    return hints;
  }

  private static List<io.fabric8.kubernetes.api.model.discovery.v1.Endpoint> endpointsOf(
      List<EndpointSlice> slices) {
    List<io.fabric8.kubernetes.api.model.discovery.v1.Endpoint> all = new ArrayList<>();
    slices.forEach(s -> all.addAll(Optional.ofNullable(s.getEndpoints()).orElse(List.of())));
    return all;
  }
}
