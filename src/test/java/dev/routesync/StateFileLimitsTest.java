package dev.routesync;

import static dev.routesync.testing.Slices.slice;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.routesync.config.AgentConfig;
import dev.routesync.state.StateFile;
import dev.routesync.state.StateSettings;
import dev.routesync.table.Endpoint;
import dev.routesync.table.Port;
import dev.routesync.table.RoutingTable;
import dev.routesync.table.ServiceEndpoints;
import dev.routesync.table.ServiceKey;
import dev.routesync.testing.AgentHarness;
import dev.routesync.testing.MockCluster;
import dev.routesync.testing.Slices;
import dev.routesync.testing.Slices.Conditions;
import dev.routesync.testing.Slices.Pod;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.ServicePortBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPort;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPortBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Objects the API server accepts but a table entry cannot hold as they are (more ports than 1,024,
 * a string over 1,024 bytes) are cut where they are translated, counted as skipped, and never make
 * the state file unwritable or unreadable: every node's agent still writes a file it can start
 * from, with the rest of the table intact.
 */
class StateFileLimitsTest {

  private static final Duration CONVERGE = Duration.ofSeconds(30);
  private static final int PORTS = 1_100;
  private static final int KEPT_PORTS = 1_024;
  private static final String LONG = "x".repeat(1_100);

  @TempDir Path dir;

  @Test
  void aServiceOfMorePortsThanAnEntryHoldsLeavesAStateFileThatLoads() throws Exception {
    Path stateFile = dir.resolve("table.bin");
    try (MockCluster cluster = new MockCluster()) {
      cluster.apply(service("web", List.of(servicePort(0))));
      cluster.apply(slice("shop", "web-a", "web", true, 8080, List.of(pod(1))));
      // Declares 1,100 ports; its one slice carries 100 of them (the most a slice may).
      List<ServicePort> declared = IntStream.range(0, PORTS).mapToObj(i -> servicePort(i)).toList();
      cluster.apply(service("wide", declared));
      cluster.apply(withPorts(slice("shop", "wide-a", "wide", true, 1, List.of(pod(2))), 0, 100));
      // One address in 11 slices of 100 ports each: 1,100 once merged.
      for (int s = 0; s < 11; s++) {
        cluster.apply(
            withPorts(
                slice("shop", "spread-" + s, "spread", true, 1, List.of(pod(3))), s * 100, 100));
      }

      try (AgentHarness agent = AgentHarness.startWith(cluster.url(), persistTo(stateFile), 0)) {
        await()
            .atMost(CONVERGE)
            .until(
                () ->
                    agent.service("shop", "wide").map(s -> s.servicePorts().size()).orElse(0) > 0
                        && agent
                                .service("shop", "spread")
                                .map(s -> s.endpoints().get(0).ports().size())
                                .orElse(0)
                            > 100);

        RoutingTable loaded = awaitLoadedAt(agent, stateFile);

        assertThat(List.copyOf(loaded.services())).isEqualTo(List.copyOf(agent.table().services()));
        ServiceEndpoints wide = loaded.get(new ServiceKey("shop", "wide")).orElseThrow();
        assertThat(wide.servicePorts()).hasSize(KEPT_PORTS);
        assertThat(wide.servicePorts().get(KEPT_PORTS - 1).name()).isEqualTo(portName(1_023));
        assertThat(wide.endpoints())
            .singleElement()
            .extracting(Endpoint::ports)
            .asList()
            .hasSize(100);
        List<Port> spread =
            loaded.get(new ServiceKey("shop", "spread")).orElseThrow().endpoints().get(0).ports();
        assertThat(spread).hasSize(KEPT_PORTS);
        assertThat(spread.get(0).name()).isEqualTo(portName(0));
        assertThat(spread.get(KEPT_PORTS - 1).name()).isEqualTo(portName(1_023));
        assertThat(loaded.get(new ServiceKey("shop", "web")).orElseThrow().endpoints())
            .extracting(Endpoint::ip)
            .containsExactly("10.0.0.1");
        // One skip for wide's declared ports, one for spread's merged address.
        assertThat(agent.counter("routesync.objects.skipped", "reason", "over_state_limits"))
            .isEqualTo(2);
      }
    }
  }

  @Test
  void anEndpointWithAZoneOrPodNameOverAStringsBytesLeavesTheRestOfTheTableInTheStateFile()
      throws Exception {
    Path stateFile = dir.resolve("table.bin");
    try (MockCluster cluster = new MockCluster()) {
      cluster.apply(slice("shop", "web-a", "web", true, 8080, List.of(pod(1), pod(2))));
      Pod longZone = new Pod("zoned-1", "10.0.1.1", "node-a", LONG, Conditions.READY);
      cluster.apply(slice("shop", "zoned-a", "zoned", true, 8080, List.of(longZone, pod(3))));
      Pod longName = new Pod(LONG, "10.0.2.1", "node-a", "zone-a", Conditions.READY);
      cluster.apply(slice("shop", "named-a", "named", true, 8080, List.of(longName)));

      try (AgentHarness agent = AgentHarness.startWith(cluster.url(), persistTo(stateFile), 0)) {
        await()
            .atMost(CONVERGE)
            .until(
                () ->
                    agent.ips("shop", "web").size() == 2
                        && agent.ips("shop", "zoned").size() == 2
                        && agent.ips("shop", "named").size() == 1);

        RoutingTable loaded = awaitLoadedAt(agent, stateFile);

        assertThat(List.copyOf(loaded.services())).isEqualTo(List.copyOf(agent.table().services()));
        assertThat(loaded.serviceCount()).isEqualTo(3);
        // The endpoints stay, routable; only the value no table string holds is left out.
        assertThat(loaded.get(new ServiceKey("shop", "zoned")).orElseThrow().endpoints())
            .extracting(Endpoint::ip, Endpoint::zone, Endpoint::pod)
            .containsExactly(
                org.assertj.core.groups.Tuple.tuple("10.0.0.3", "zone-a", "pod-3"),
                org.assertj.core.groups.Tuple.tuple("10.0.1.1", null, "zoned-1"));
        assertThat(loaded.get(new ServiceKey("shop", "named")).orElseThrow().endpoints())
            .extracting(Endpoint::ip, Endpoint::zone, Endpoint::pod)
            .containsExactly(org.assertj.core.groups.Tuple.tuple("10.0.2.1", "zone-a", null));
        assertThat(agent.ips("shop", "web")).containsExactly("10.0.0.1", "10.0.0.2");
        assertThat(agent.counter("routesync.state.writes", "result", "failed")).isZero();
        assertThat(agent.counter("routesync.objects.skipped", "reason", "over_state_limits"))
            .isEqualTo(2);
      }
    }
  }

  /**
   * The table the state file holds once the agent has written its current version. Fails at the
   * first write that failed or a file that does not load, rather than waiting out the timeout.
   */
  private static RoutingTable awaitLoadedAt(AgentHarness agent, Path stateFile) {
    long version = agent.table().version();
    StateFile file = new StateFile(stateFile);
    StateFile.Loaded loaded =
        await()
            .atMost(CONVERGE)
            .until(
                () ->
                    agent.counter("routesync.state.writes", "result", "failed") > 0
                        ? new StateFile.Failed(null, "a state write failed")
                        : file.load(Instant.now(), 8),
                result ->
                    result instanceof StateFile.Failed
                        || (result instanceof StateFile.Found found
                            && found.persisted().table().version() >= version));
    assertThat(loaded).isInstanceOf(StateFile.Found.class);
    return ((StateFile.Found) loaded).persisted().table();
  }

  /** The slice with {@code count} ports of the Service's, from the {@code from}th on. */
  private static EndpointSlice withPorts(EndpointSlice slice, int from, int count) {
    List<EndpointPort> ports = new ArrayList<>();
    for (int i = from; i < from + count; i++) {
      ports.add(
          new EndpointPortBuilder()
              .withName(portName(i))
              .withPort(10_000 + i)
              .withProtocol("TCP")
              .build());
    }
    slice.setPorts(ports);
    return slice;
  }

  private static String portName(int i) {
    return String.format("p%04d", i);
  }

  private static ServicePort servicePort(int i) {
    return new ServicePortBuilder()
        .withName(portName(i))
        .withPort(10_000 + i)
        .withTargetPort(new IntOrString(10_000 + i))
        .build();
  }

  private static Service service(String name, List<ServicePort> ports) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace("shop")
        .withName(name)
        .addToLabels(Slices.MESH_LABEL, "true")
        .endMetadata()
        .withNewSpec()
        .addToSelector("app", name)
        .withPorts(ports)
        .endSpec()
        .build();
  }

  private static UnaryOperator<AgentConfig> persistTo(Path stateFile) {
    return config ->
        config.withState(new StateSettings(Optional.of(stateFile), Duration.ofMillis(100)));
  }

  private static Pod pod(int n) {
    return Pod.ready("pod-" + n, "10.0.0." + n);
  }
}
