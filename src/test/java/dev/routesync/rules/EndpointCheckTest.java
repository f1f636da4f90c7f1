package dev.routesync.rules;

import static dev.routesync.rules.Specs.container;
import static dev.routesync.rules.Specs.named;
import static dev.routesync.rules.Specs.port;
import static dev.routesync.rules.Specs.servicePort;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class EndpointCheckTest {

  private static final PortSearch SEARCH = PortSearch.CONTAINERS_AND_SIDECARS;

  static Pod pod(String uid, io.fabric8.kubernetes.api.model.Container... containers) {
    return new PodBuilder()
        .withNewMetadata()
        .withNamespace("shop")
        .withName("quote-" + uid)
        .withUid(uid)
        .endMetadata()
        .withSpec(Specs.pod(containers))
        .build();
  }

  static EndpointSlice slice(String managedBy, List<String> portNames, String... uids) {
    EndpointSliceBuilder builder =
        new EndpointSliceBuilder()
            .withNewMetadata()
            .withNamespace("shop")
            .withName("quote-" + String.join("", portNames) + uids.length)
            .addToLabels("kubernetes.io/service-name", "quote")
            .addToLabels(ControllerSlices.MANAGED_BY_LABEL, managedBy)
            .endMetadata()
            .withAddressType("IPv4");
    for (String name : portNames) {
      builder.addNewPort().withName(name).withPort(8080).withProtocol("TCP").endPort();
    }
    if (portNames.isEmpty()) {
      builder.withPorts((List<io.fabric8.kubernetes.api.model.discovery.v1.EndpointPort>) null);
    }
    boolean ready = true;
    for (String uid : uids) {
      boolean notReady = uid.startsWith("!");
      builder
          .addNewEndpoint()
          .withAddresses("10.0.0." + (uid.hashCode() & 0x7f))
          .withNewConditions()
          .withReady(notReady ? Boolean.FALSE : ready ? null : Boolean.TRUE)
          .endConditions()
          .withNewTargetRef()
          .withKind("Pod")
          .withUid(notReady ? uid.substring(1) : uid)
          .endTargetRef()
          .endEndpoint();
    }
    return builder.build();
  }

  @Test
  void theIncidentIsANamedPortNotFoundNamingTheDeclaredPortsAndTheClosest() {
    Pod renamed = pod("u1", container("app", port("http-api", 8080)));
    Set<String> ready =
        ControllerSlices.readyUidsWithPort(
            List.of(slice(ControllerSlices.CONTROLLER, List.of(), "u1")), "http");

    Missing missing =
        EndpointCheck.check(renamed, named("http", 80, "http"), ready, SEARCH).orElseThrow();

    assertThat(missing.reason()).isEqualTo(MissingReason.NAMED_PORT_NOT_FOUND);
    assertThat(missing.reason().certain()).isTrue();
    assertThat(missing.declaredNames()).containsExactly("http-api");
    assertThat(missing.closest()).contains("http-api");
    assertThat(missing.message())
        .isEqualTo(
            "port http (80 -> http/TCP): no container port named http; the pod declares"
                + " http-api (closest: http-api)");
  }

  @Test
  void aPodListedReadyWithThePortIsNeverMissing() {
    Pod pod = pod("u1", container("app", port("http", 8080)));
    Set<String> ready =
        ControllerSlices.readyUidsWithPort(
            List.of(slice(ControllerSlices.CONTROLLER, List.of("http"), "u1")), "http");

    assertThat(EndpointCheck.check(pod, named("http", 80, "http"), ready, SEARCH)).isEmpty();
  }

  @Test
  void aResolvingPodThatIsAbsentIsNotInEndpointsAndNotCertain() {
    Pod pod = pod("u2", container("app", port("http", 8080)));

    Missing missing =
        EndpointCheck.check(pod, named("http", 80, "http"), Set.of("u1"), SEARCH).orElseThrow();

    assertThat(missing.reason()).isEqualTo(MissingReason.NOT_IN_ENDPOINTS);
    assertThat(missing.reason().certain()).isFalse();
  }

  @Test
  void aProtocolMismatchSaysBothProtocols() {
    Pod pod = pod("u1", container("dns", port("dns", 53, "TCP")));

    Missing missing =
        EndpointCheck.check(
                pod, servicePort("dns", 53, new IntOrString("dns"), "UDP"), Set.of(), SEARCH)
            .orElseThrow();

    assertThat(missing.reason()).isEqualTo(MissingReason.PROTOCOL_MISMATCH);
    assertThat(missing.message()).contains("declares dns as TCP, the Service wants UDP");
  }

  @Test
  void readyUidsCountOnlyTheControllersSlicesTheNamedPortAndReadyEndpoints() {
    List<EndpointSlice> slices =
        List.of(
            slice(ControllerSlices.CONTROLLER, List.of("http"), "u1", "!u2"),
            slice(ControllerSlices.CONTROLLER, List.of(), "u3"),
            slice(ControllerSlices.CONTROLLER, List.of("grpc"), "u4"),
            slice("endpointslicemirroring-controller.k8s.io", List.of("http"), "u5"));

    assertThat(ControllerSlices.readyUidsWithPort(slices, "http")).containsExactly("u1");
    assertThat(ControllerSlices.readyUidsWithPort(slices, "grpc")).containsExactly("u4");
    assertThat(ControllerSlices.readyUids(slices)).containsExactlyInAnyOrder("u1", "u3", "u4");
  }

  @Test
  void anUnnamedServicePortMatchesTheSlicesUnnamedPort() {
    List<EndpointSlice> slices = List.of(slice(ControllerSlices.CONTROLLER, List.of(""), "u1"));

    assertThat(ControllerSlices.readyUidsWithPort(slices, "")).containsExactly("u1");
  }
}
