package dev.routesync.rules;

import static dev.routesync.rules.Specs.container;
import static dev.routesync.rules.Specs.init;
import static dev.routesync.rules.Specs.named;
import static dev.routesync.rules.Specs.pod;
import static dev.routesync.rules.Specs.port;
import static dev.routesync.rules.Specs.servicePort;
import static dev.routesync.rules.Specs.sidecar;
import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.rules.PortResolution.NotFound;
import dev.routesync.rules.PortResolution.ProtocolMismatch;
import dev.routesync.rules.PortResolution.Resolved;
import dev.routesync.rules.PortResolution.Via;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.ServicePort;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** {@code FindPort}, case by case (pkg/api/v1/pod/util.go and its tests). */
class TargetPortsTest {

  private static final PortSearch NEW = PortSearch.CONTAINERS_AND_SIDECARS;
  private static final PortSearch OLD = PortSearch.CONTAINERS;

  /** Expected: a port number, or -1 for not found, or -2 for a protocol mismatch. */
  static Stream<Arguments> cases() {
    return Stream.of(
        Arguments.of(
            "name and protocol match",
            named("web", 80, "http"),
            pod(container("app", port("http", 8080))),
            NEW,
            8080,
            Via.CONTAINER),
        Arguments.of(
            "the seed's rename",
            named("http", 80, "http"),
            pod(container("app", port("http-api", 8080))),
            NEW,
            -1,
            null),
        Arguments.of(
            "first container in order wins",
            named("", 80, "http"),
            pod(container("a", port("http", 1111)), container("b", port("http", 2222))),
            NEW,
            1111,
            Via.CONTAINER),
        Arguments.of(
            "first port in a container wins",
            named("", 80, "http"),
            pod(container("a", port("http", 1111), port("http", 2222))),
            NEW,
            1111,
            Via.CONTAINER),
        Arguments.of(
            "a protocol match later beats an earlier mismatch",
            servicePort("dns", 53, new IntOrString("dns"), "UDP"),
            pod(container("a", port("dns", 5353, "TCP")), container("b", port("dns", 53, "UDP"))),
            NEW,
            53,
            Via.CONTAINER),
        Arguments.of(
            "name matches, protocol does not",
            servicePort("dns", 53, new IntOrString("dns"), "UDP"),
            pod(container("a", port("dns", 5353))),
            NEW,
            -2,
            null),
        Arguments.of(
            "protocol defaults to TCP on both sides",
            servicePort("web", 80, new IntOrString("http"), null),
            pod(container("a", port("http", 8080, "TCP"))),
            NEW,
            8080,
            Via.CONTAINER),
        Arguments.of(
            "TCP service, SCTP container",
            servicePort("x", 80, new IntOrString("x"), "TCP"),
            pod(container("a", port("x", 9, "SCTP"))),
            NEW,
            -2,
            null),
        Arguments.of(
            "a number is used as is, declared or not",
            servicePort("web", 80, new IntOrString(9376), null),
            pod(container("a")),
            NEW,
            9376,
            Via.NUMBER),
        Arguments.of(
            "omitted targetPort means the Service port",
            servicePort("web", 80, null, null),
            pod(container("a")),
            NEW,
            80,
            Via.SERVICE_PORT),
        Arguments.of(
            "targetPort 0 means the Service port",
            servicePort("web", 80, new IntOrString(0), null),
            pod(),
            NEW,
            80,
            Via.SERVICE_PORT),
        Arguments.of(
            "targetPort \"\" means the Service port",
            servicePort("web", 80, new IntOrString(""), null),
            pod(),
            NEW,
            80,
            Via.SERVICE_PORT),
        Arguments.of(
            "restartable init container found on 1.32+",
            named("m", 9090, "metrics"),
            pod(
                List.of(container("app", port("http", 8080))),
                List.of(sidecar("proxy", port("metrics", 15090)))),
            NEW,
            15090,
            Via.SIDECAR),
        Arguments.of(
            "restartable init container ignored before 1.32",
            named("m", 9090, "metrics"),
            pod(
                List.of(container("app", port("http", 8080))),
                List.of(sidecar("proxy", port("metrics", 15090)))),
            OLD,
            -1,
            null),
        Arguments.of(
            "containers are searched before sidecars",
            named("m", 9090, "metrics"),
            pod(
                List.of(container("app", port("metrics", 1))),
                List.of(sidecar("proxy", port("metrics", 2)))),
            NEW,
            1,
            Via.CONTAINER),
        Arguments.of(
            "a plain init container is never searched",
            named("m", 9090, "metrics"),
            pod(List.of(container("app")), List.of(init("setup", port("metrics", 2)))),
            NEW,
            -1,
            null),
        Arguments.of("no containers at all", named("web", 80, "http"), pod(), NEW, -1, null),
        Arguments.of("a null spec", named("web", 80, "http"), null, NEW, -1, null));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void resolvesAsFindPortDoes(
      String name, ServicePort port, PodSpec pod, PortSearch search, int expected, Via via) {
    PortResolution resolution = TargetPorts.resolve(port, pod, search);
    if (expected == -1) {
      assertThat(resolution).isInstanceOf(NotFound.class);
    } else if (expected == -2) {
      assertThat(resolution).isInstanceOf(ProtocolMismatch.class);
    } else {
      assertThat(resolution).isInstanceOf(Resolved.class);
      assertThat(((Resolved) resolution).port()).isEqualTo(expected);
      assertThat(((Resolved) resolution).via()).isEqualTo(via);
    }
  }

  @org.junit.jupiter.api.Test
  void notFoundListsTheDeclaredNamesAndTheClosest() {
    PortResolution resolution =
        TargetPorts.resolve(
            named("http", 80, "http"),
            pod(container("app", port("http-api", 8080), port("metrics", 9090), port("", 7))),
            NEW);

    NotFound notFound = (NotFound) resolution;
    assertThat(TargetPorts.namesOf(notFound.declared())).containsExactly("http-api", "metrics");
    assertThat(notFound.closest()).contains("http-api");
  }

  @org.junit.jupiter.api.Test
  void aMultiPortServiceResolvesEachPortOnItsOwn() {
    PodSpec pod = pod(container("app", port("http", 8080)));

    assertThat(TargetPorts.resolve(named("http", 80, "http"), pod, NEW).resolved()).isTrue();
    assertThat(TargetPorts.resolve(named("grpc", 81, "grpc"), pod, NEW).resolved()).isFalse();
  }

  @org.junit.jupiter.api.Test
  void closestIsEmptyWhenThePodDeclaresNoNames() {
    NotFound notFound =
        (NotFound) TargetPorts.resolve(named("http", 80, "http"), pod(container("a")), NEW);

    assertThat(notFound.closest()).isEqualTo(Optional.empty());
  }
}
