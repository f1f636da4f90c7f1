package dev.routesync.table;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.table.TopologyDecision.Fallback;
import dev.routesync.table.TopologyDecision.Mode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The decision against kube-proxy's cases ({@code pkg/proxy/topology_test.go},
 * TestCategorizeEndpoints): which endpoints this node routes to, for hints and for
 * internalTrafficPolicy Local. Endpoints are written {@code ip/node/zone/hintZones/hintNodes/state}
 * with state r (ready), t (serving terminating), x (neither), hints comma separated.
 */
class TopologyRuleTest {

  private static final NodeLocality HERE = new NodeLocality("node-1", "zone-a", "region-1");

  static Stream<Arguments> cases() {
    ServiceTraffic cluster = ServiceTraffic.DEFAULT;
    ServiceTraffic local = ServiceTraffic.of(null, true);
    ServiceTraffic close = ServiceTraffic.of("PreferClose", false);
    NodeLocality noZone = new NodeLocality("node-1", null, null);
    return Stream.of(
        Arguments.of(
            "no hints: every endpoint",
            cluster,
            HERE,
            eps("10.0.0.1/node-1/zone-a///r", "10.0.0.2/node-2/zone-b///r"),
            Mode.NONE,
            null,
            List.of("10.0.0.1", "10.0.0.2")),
        Arguments.of(
            "zone hints, one for this zone: same-zone",
            close,
            HERE,
            eps(
                "10.0.0.1/node-1/zone-a/zone-a//r",
                "10.0.0.2/node-2/zone-b/zone-b//r",
                "10.0.0.3/node-3/zone-c/zone-a//r"),
            Mode.SAME_ZONE,
            null,
            List.of("10.0.0.1", "10.0.0.3")),
        Arguments.of(
            "hints for several zones count for each",
            close,
            HERE,
            eps("10.0.0.1/node-2/zone-b/zone-a,zone-b//r", "10.0.0.2/node-3/zone-c/zone-c//r"),
            Mode.SAME_ZONE,
            null,
            List.of("10.0.0.1")),
        Arguments.of(
            "one ready endpoint without a zone hint: none",
            close,
            HERE,
            eps("10.0.0.1/node-1/zone-a/zone-a//r", "10.0.0.2/node-2/zone-b///r"),
            Mode.NONE,
            Fallback.MISSING_HINTS,
            List.of("10.0.0.1", "10.0.0.2")),
        Arguments.of(
            "the hint-less endpoint first: the same fallback",
            close,
            HERE,
            eps("10.0.0.1/node-1/zone-a///r", "10.0.0.2/node-2/zone-b/zone-b//r"),
            Mode.NONE,
            Fallback.MISSING_HINTS,
            List.of("10.0.0.1", "10.0.0.2")),
        Arguments.of(
            "no hint for this zone: none",
            close,
            HERE,
            eps("10.0.0.1/node-2/zone-b/zone-b//r", "10.0.0.2/node-3/zone-c/zone-c//r"),
            Mode.NONE,
            Fallback.NO_HINT_FOR_ZONE,
            List.of("10.0.0.1", "10.0.0.2")),
        Arguments.of(
            "node without a zone label: none",
            close,
            noZone,
            eps("10.0.0.1/node-2/zone-b/zone-b//r", "10.0.0.2/node-3/zone-a/zone-a//r"),
            Mode.NONE,
            Fallback.NODE_ZONE_UNKNOWN,
            List.of("10.0.0.1", "10.0.0.2")),
        Arguments.of(
            "node hints, one for this node: same-node",
            ServiceTraffic.of("PreferSameNode", false),
            HERE,
            eps(
                "10.0.0.1/node-1/zone-a/zone-a/node-1/r",
                "10.0.0.2/node-2/zone-a/zone-a/node-2/r",
                "10.0.0.3/node-3/zone-b/zone-b/node-3/r"),
            Mode.SAME_NODE,
            null,
            List.of("10.0.0.1")),
        Arguments.of(
            "node hints, none for this node: same-zone",
            ServiceTraffic.of("PreferSameNode", false),
            HERE,
            eps("10.0.0.2/node-2/zone-a/zone-a/node-2/r", "10.0.0.3/node-3/zone-b/zone-b/node-3/r"),
            Mode.SAME_ZONE,
            null,
            List.of("10.0.0.2")),
        Arguments.of(
            "one endpoint lacks a node hint: same-zone",
            ServiceTraffic.of("PreferSameNode", false),
            HERE,
            eps(
                "10.0.0.1/node-1/zone-a/zone-a/node-1/r",
                "10.0.0.2/node-2/zone-a/zone-a//r",
                "10.0.0.3/node-3/zone-b/zone-b//r"),
            Mode.SAME_ZONE,
            null,
            List.of("10.0.0.1", "10.0.0.2")),
        Arguments.of(
            "only terminating endpoints: no hints to consider",
            close,
            HERE,
            eps("10.0.0.1/node-2/zone-b/zone-b//t", "10.0.0.2/node-3/zone-c/zone-c//t"),
            Mode.NONE,
            null,
            List.of("10.0.0.1", "10.0.0.2")),
        Arguments.of(
            "Local: this node's ready endpoints",
            local,
            HERE,
            eps("10.0.0.1/node-1/zone-a///r", "10.0.0.2/node-2/zone-a///r", "10.0.0.3/node-1////r"),
            Mode.LOCAL,
            null,
            List.of("10.0.0.1", "10.0.0.3")),
        Arguments.of(
            "Local ignores hints",
            ServiceTraffic.of("PreferClose", true),
            HERE,
            eps("10.0.0.1/node-1/zone-a/zone-b//r", "10.0.0.2/node-2/zone-a/zone-a//r"),
            Mode.LOCAL,
            null,
            List.of("10.0.0.1")),
        Arguments.of(
            "Local, only serving terminating here (nothing ready anywhere)",
            local,
            HERE,
            eps("10.0.0.1/node-1/zone-a///t", "10.0.0.2/node-2/zone-a///t"),
            Mode.LOCAL,
            null,
            List.of("10.0.0.1")),
        Arguments.of(
            "Local, serving terminating here while another node has a ready one: the local one",
            local,
            HERE,
            eps("10.0.0.1/node-1/zone-a///t", "10.0.0.2/node-2/zone-a///r"),
            Mode.LOCAL,
            null,
            List.of("10.0.0.1")),
        Arguments.of(
            "Local, ready and serving terminating here: the ready one only",
            local,
            HERE,
            eps(
                "10.0.0.1/node-1/zone-a///t",
                "10.0.0.2/node-2/zone-a///r",
                "10.0.0.3/node-1/zone-a///r",
                "10.0.0.4/node-2/zone-a///t"),
            Mode.LOCAL,
            null,
            List.of("10.0.0.3")),
        Arguments.of(
            "Local, terminating ones on other nodes only: nothing, never a remote one",
            local,
            HERE,
            eps("10.0.0.2/node-2/zone-a///t", "10.0.0.3/node-3/zone-a///r"),
            Mode.NO_LOCAL_ENDPOINT,
            null,
            List.of()),
        Arguments.of(
            "Local, none on this node: nothing, never a remote one",
            local,
            HERE,
            eps("10.0.0.2/node-2/zone-a///r", "10.0.0.3/node-3/zone-a///r"),
            Mode.NO_LOCAL_ENDPOINT,
            null,
            List.of()),
        Arguments.of(
            "Local, node name unknown: nothing",
            local,
            NodeLocality.UNKNOWN,
            eps("10.0.0.1/node-1/zone-a///r"),
            Mode.NO_LOCAL_ENDPOINT,
            null,
            List.of()),
        Arguments.of(
            "Local, a here endpoint neither ready nor serving does not count",
            local,
            HERE,
            eps("10.0.0.1/node-1/zone-a///x", "10.0.0.2/node-2/zone-a///r"),
            Mode.NO_LOCAL_ENDPOINT,
            null,
            List.of()),
        Arguments.of("no endpoints", cluster, HERE, List.of(), Mode.NONE, null, List.of()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void decidesAsKubeProxy(
      String name,
      ServiceTraffic traffic,
      NodeLocality here,
      List<Endpoint> endpoints,
      Mode mode,
      Fallback fallback,
      List<String> chosen) {
    TopologyDecision decision = TopologyRule.decide(endpoints, traffic, here);

    assertThat(decision.mode()).isEqualTo(mode);
    assertThat(decision.fallback()).isEqualTo(fallback);
    List<String> selected = new ArrayList<>();
    for (Endpoint endpoint : endpoints) {
      if (decision.selects(endpoint)) {
        selected.add(endpoint.ip());
      }
    }
    assertThat(selected).isEqualTo(chosen);
    if (mode == Mode.NO_LOCAL_ENDPOINT) {
      assertThat(decision.reason()).isEqualTo("no node-local endpoint");
    }
  }

  @org.junit.jupiter.api.Test
  void localTerminatingFallbackSaysSoAndAReadyLocalEndpointDoesNot() {
    ServiceTraffic local = ServiceTraffic.of(null, true);

    TopologyDecision fallback =
        TopologyRule.decide(
            eps("10.0.0.1/node-1/zone-a///t", "10.0.0.2/node-2/zone-a///r"), local, HERE);
    TopologyDecision ready =
        TopologyRule.decide(
            eps("10.0.0.1/node-1/zone-a///t", "10.0.0.3/node-1/zone-a///r"), local, HERE);

    assertThat(fallback.mode()).isEqualTo(Mode.LOCAL);
    assertThat(fallback.reason()).isEqualTo("local terminating fallback");
    assertThat(fallback.fallback()).as("not a hints fallback: no metric, no log").isNull();
    assertThat(ready.mode()).isEqualTo(Mode.LOCAL);
    assertThat(ready.reason()).isEmpty();
  }

  @org.junit.jupiter.api.Test
  void theUsualServiceSharesOneDecision() {
    assertThat(TopologyRule.decide(eps("10.0.0.1/node-1/zone-a///r"), ServiceTraffic.DEFAULT, HERE))
        .isSameAs(TopologyDecision.NONE);
  }

  private static List<Endpoint> eps(String... specs) {
    List<Endpoint> endpoints = new ArrayList<>();
    for (String spec : specs) {
      String[] f = spec.split("/", -1);
      String state = f[5];
      endpoints.add(
          new Endpoint(
              f[0],
              List.of(),
              f[2].isEmpty() ? null : f[2],
              EndpointHints.of(names(f[3]), names(f[4])),
              f[1].isEmpty() ? null : f[1],
              null,
              state.equals("r"),
              !state.equals("x"),
              state.equals("t") || state.equals("x")));
    }
    return endpoints;
  }

  private static List<String> names(String csv) {
    return csv.isEmpty() ? List.of() : Arrays.stream(csv.split(",")).sorted().toList();
  }
}
