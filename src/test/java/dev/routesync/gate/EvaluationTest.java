package dev.routesync.gate;

import static dev.routesync.gate.GateObjects.containerPort;
import static dev.routesync.gate.GateObjects.pod;
import static dev.routesync.gate.GateObjects.quote;
import static dev.routesync.gate.GateObjects.slice;
import static dev.routesync.gate.GateObjects.slicePort;
import static dev.routesync.gate.GateObjects.withUid;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Which pods the gate expects, and which slices it believes: the controller's rules, applied. */
class EvaluationTest {

  private static final Targets QUOTE = Targets.named(GateObjects.NS, List.of("quote"));

  private static Pod ready(String name, String uid) {
    return withUid(pod(name, "quote", "10.0.0.1", true, containerPort("http", 8080)), uid);
  }

  private static PortResult only(Evaluation evaluation) {
    assertThat(evaluation.services()).hasSize(1);
    assertThat(evaluation.services().get(0).ports()).hasSize(1);
    return evaluation.services().get(0).ports().get(0);
  }

  private static Evaluation evaluate(Service service, List<Pod> pods, List<EndpointSlice> slices) {
    return Evaluation.of(new Snapshot(List.of(service), pods, slices), QUOTE);
  }

  @Test
  void terminatingTerminalAndAddresslessPodsAreNotExpected() {
    Pod terminating =
        new PodBuilder(ready("quote-old", "u1"))
            .editMetadata()
            .withDeletionTimestamp("2026-12-01T12:00:00Z")
            .endMetadata()
            .build();
    Pod succeeded =
        new PodBuilder(ready("quote-job", "u2"))
            .editStatus()
            .withPhase("Succeeded")
            .endStatus()
            .build();
    Pod noIp =
        new PodBuilder(ready("quote-new", "u3")).editStatus().withPodIP(null).endStatus().build();
    Pod otherApp = withUid(pod("cart-0", "cart", "10.0.0.9", true, containerPort("web", 1)), "u4");

    PortResult port =
        only(evaluate(quote(), List.of(terminating, succeeded, noIp, otherApp), List.of()));

    assertThat(port.expected()).isZero();
    assertThat(port.missing()).isEmpty();
  }

  @Test
  void publishNotReadyAddressesExpectsPodsThatAreNotReady() {
    Service publishing =
        new ServiceBuilder(quote()).editSpec().withPublishNotReadyAddresses(true).endSpec().build();
    Pod starting =
        withUid(pod("quote-0", "quote", "10.0.0.1", false, containerPort("http", 8080)), "u");

    PortResult port = only(evaluate(publishing, List.of(starting), List.of()));

    assertThat(port.expected()).isEqualTo(1);
    assertThat(port.missing())
        .extracting(m -> m.missing().reason().label())
        .containsExactly("NotInEndpoints");
  }

  @Test
  void onlyReadyEndpointsWithThePortInTheControllersSlicesOfTheServiceCount() {
    Pod a = ready("quote-a", "ua");
    Pod b = ready("quote-b", "ub");
    Pod c = ready("quote-c", "uc");
    Pod d = ready("quote-d", "ud");
    EndpointSlice mirrored =
        new EndpointSliceBuilder(
                slice("quote-m", "quote", List.of(slicePort("http", 8080)), List.of(a)))
            .editMetadata()
            .addToLabels(
                "endpointslice.kubernetes.io/managed-by",
                "endpointslicemirroring-controller.k8s.io")
            .endMetadata()
            .build();
    EndpointSlice otherService =
        slice("cart-x", "cart", List.of(slicePort("http", 8080)), List.of(b));
    Pod notReadyC =
        new PodBuilder(c)
            .editStatus()
            .withConditions()
            .addNewCondition()
            .withType("Ready")
            .withStatus("False")
            .endCondition()
            .endStatus()
            .build();
    EndpointSlice notReady =
        slice("quote-n", "quote", List.of(slicePort("http", 8080)), List.of(notReadyC));
    EndpointSlice good = slice("quote-x", "quote", List.of(slicePort("http", 8080)), List.of(d));

    PortResult port =
        only(
            evaluate(
                quote(), List.of(a, b, c, d), List.of(mirrored, otherService, notReady, good)));

    assertThat(port.expected()).isEqualTo(4);
    assertThat(port.ready()).isEqualTo(1);
    assertThat(port.missing())
        .extracting(MissingPod::pod)
        .containsExactly("quote-a", "quote-b", "quote-c");
  }

  @Test
  void aServiceWithoutPortsIsJudgedByItsReadyEndpoints() {
    Service headless =
        new ServiceBuilder(quote())
            .editSpec()
            .withClusterIP("None")
            .withPorts(List.of())
            .endSpec()
            .build();
    Pod a = ready("quote-a", "ua");
    Pod b = ready("quote-b", "ub");

    PortResult port =
        only(
            evaluate(
                headless, List.of(a, b), List.of(slice("quote-x", "quote", null, List.of(a)))));

    assertThat(port.name()).isEmpty();
    assertThat(port.description()).isEqualTo("(no ports)");
    assertThat(port.ready()).isEqualTo(1);
    assertThat(port.missing()).extracting(MissingPod::pod).containsExactly("quote-b");
  }

  @Test
  void anExternalNameServiceIsSkippedWithANote() {
    Service external =
        new ServiceBuilder(quote())
            .editSpec()
            .withType("ExternalName")
            .withExternalName("quote.example")
            .endSpec()
            .build();

    Evaluation evaluation = evaluate(external, List.of(), List.of());

    assertThat(evaluation.services().get(0).skipped())
        .isEqualTo(
            Optional.of(
                "ExternalName Service: the EndpointSlice controller writes no endpoints for it"));
    assertThat(evaluation.cannotEvaluate()).isPresent();
  }

  @Test
  void aSelectorThatFindsNoServiceCannotBeEvaluated() {
    Evaluation evaluation =
        Evaluation.of(
            new Snapshot(List.of(), List.of(), List.of()),
            Targets.selected(GateObjects.NS, "tier=front"));

    assertThat(evaluation.cannotEvaluate()).contains("no Service matches the selector");
  }
}
