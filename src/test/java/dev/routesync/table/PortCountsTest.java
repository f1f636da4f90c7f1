package dev.routesync.table;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Per-port ready counts, the one computation behind the APIs' port_counts and get's PORTS. */
class PortCountsTest {

  private static final Port HTTP_80 = new Port("http", 80, "TCP");
  private static final Port METRICS_9090 = new Port("metrics", 9090, "TCP");
  private static final Port HTTP_8080 = new Port("http", 8080, "TCP");
  private static final Port METRICS_9100 = new Port("metrics", 9100, "TCP");

  /** {@code count} ready endpoints, each carrying {@code ports} (resolved on the pod). */
  private static List<Endpoint> ready(int count, Port... ports) {
    List<Endpoint> endpoints = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      endpoints.add(
          new Endpoint(
              "10.0." + ports.length + "." + i,
              List.of(ports),
              "zone-a",
              "node-a",
              "pod-" + i,
              true,
              true,
              false));
    }
    return endpoints;
  }

  private static List<Endpoint> notReady(int count, Port... ports) {
    List<Endpoint> endpoints = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      endpoints.add(
          new Endpoint(
              "10.9.0." + i, List.of(ports), "zone-a", "node-a", "old-" + i, false, true, true));
    }
    return endpoints;
  }

  @SafeVarargs
  private static List<Endpoint> all(List<Endpoint>... groups) {
    List<Endpoint> endpoints = new ArrayList<>();
    for (List<Endpoint> group : groups) {
      endpoints.addAll(group);
    }
    return endpoints;
  }

  static Stream<Arguments> cases() {
    return Stream.of(
        Arguments.of(
            "the seed-002 incident: 8 ready pods resolve no port, listed in a ports: null slice",
            ready(8),
            List.of(HTTP_80),
            List.of(new PortCount("http", 80, "TCP", 0, 8))),
        Arguments.of(
            "a partial rollout: 6 old pods still resolve http, 2 new ones do not",
            all(ready(6, HTTP_8080), ready(2)),
            List.of(HTTP_80),
            List.of(new PortCount("http", 80, "TCP", 6, 8))),
        Arguments.of(
            "multi-port: metrics is missing on 3 of 5 pods; counts are sorted by name",
            all(ready(2, HTTP_8080, METRICS_9100), ready(3, HTTP_8080)),
            List.of(METRICS_9090, HTTP_80),
            List.of(
                new PortCount("http", 80, "TCP", 5, 5),
                new PortCount("metrics", 9090, "TCP", 2, 5))),
        Arguments.of(
            "endpoints that are not ready count neither as ready nor as listed",
            all(ready(2, HTTP_8080), notReady(3, HTTP_8080)),
            List.of(HTTP_80),
            List.of(new PortCount("http", 80, "TCP", 2, 2))),
        Arguments.of(
            "headless without ports: no per-port entries, counted by endpoints",
            ready(3),
            List.of(),
            List.of()),
        Arguments.of(
            "unknown Service: the port names the endpoints carry, with port 0",
            all(ready(2, HTTP_8080, METRICS_9100), ready(1, HTTP_8080)),
            List.of(),
            List.of(
                new PortCount("http", 0, "TCP", 3, 3), new PortCount("metrics", 0, "TCP", 2, 3))),
        Arguments.of(
            "unknown Service in the incident: nothing to count by port, as headless",
            ready(8),
            List.of(),
            List.of()),
        Arguments.of(
            "a Service with no endpoints at all: 0 of 0 on each declared port",
            List.of(),
            List.of(HTTP_80),
            List.of(new PortCount("http", 80, "TCP", 0, 0))),
        Arguments.of(
            "a single unnamed port",
            ready(2, new Port("", 8080, "UDP")),
            List.of(new Port("", 53, "UDP")),
            List.of(new PortCount("", 53, "UDP", 2, 2))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void countsReadyEndpointsPerServicePort(
      String description, List<Endpoint> endpoints, List<Port> servicePorts, List<PortCount> want) {
    assertThat(PortCounts.of(endpoints, servicePorts)).isEqualTo(want);
  }
}
