package dev.routesync.xds;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.table.Endpoint;
import dev.routesync.table.EndpointHints;
import dev.routesync.table.NodeLocality;
import dev.routesync.table.Port;
import dev.routesync.table.ServiceEndpoints;
import dev.routesync.table.ServiceKey;
import dev.routesync.table.ServiceState;
import dev.routesync.table.ServiceTraffic;
import dev.routesync.table.TopologyDecision;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.config.core.v3.HealthStatus;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.config.endpoint.v3.LbEndpoint;
import io.envoyproxy.envoy.config.endpoint.v3.LocalityLbEndpoints;
import io.envoyproxy.envoy.config.listener.v3.Listener;
import io.envoyproxy.envoy.config.route.v3.RouteConfiguration;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class XdsResourcesTest {

  private static final ServiceKey CART = new ServiceKey("shop", "cart");

  private static Endpoint endpoint(String ip, String zone, List<Port> ports, boolean ready) {
    return new Endpoint(ip, ports, zone, "node", "pod-" + ip, ready, true, !ready);
  }

  private static ServiceEndpoints service(List<Endpoint> endpoints, List<Port> declared) {
    return new ServiceEndpoints(CART, 7, endpoints, declared);
  }

  private static ClusterLoadAssignment assignment(String name, ServiceEndpoints service) {
    return XdsResources.assignment(name, XdsNames.parse(name), Optional.of(service));
  }

  /** The endpoints calls can reach: none when the assignment drops every call. */
  private static List<String> addresses(ClusterLoadAssignment assignment) {
    if (XdsResources.dropsEverything(assignment)) {
      return List.of();
    }
    return assignment.getEndpointsList().stream()
        .flatMap(locality -> locality.getLbEndpointsList().stream())
        .map(LbEndpoint::getEndpoint)
        .map(e -> e.getAddress().getSocketAddress())
        .map(a -> a.getAddress() + ":" + a.getPortValue())
        .toList();
  }

  @Test
  void aListenerEndsWithTheRouterFilterAndRoutesEverythingToItsCluster() throws Exception {
    Listener listener = XdsResources.listener("cart.shop:8080");
    HttpConnectionManager manager =
        listener.getApiListener().getApiListener().unpack(HttpConnectionManager.class);
    assertThat(manager.getHttpFiltersList())
        .last()
        .satisfies(filter -> assertThat(filter.getName()).isEqualTo("envoy.filters.http.router"));
    RouteConfiguration route = manager.getRouteConfig();
    assertThat(route.getVirtualHosts(0).getDomainsList()).containsExactly("*");
    assertThat(route.getVirtualHosts(0).getRoutes(0).getRoute().getCluster())
        .isEqualTo("cart.shop.svc.cluster.local:8080");
  }

  @Test
  void aNameThatNamesNoServiceGetsAListenerWithNoRouteSoCallsFailAtOnce() {
    RouteConfiguration route = XdsResources.route("not-a-service-name");
    assertThat(route.getVirtualHosts(0).getRoutesList()).isEmpty();
  }

  @Test
  void aClusterIsEdsOverAdsWithAPolicyGrpcClientsKnow() {
    Cluster cluster = XdsResources.cluster("cart.shop.svc.cluster.local:8080");
    assertThat(cluster.getType()).isEqualTo(Cluster.DiscoveryType.EDS);
    assertThat(cluster.getEdsClusterConfig().getEdsConfig().hasAds()).isTrue();
    assertThat(cluster.getLbPolicy()).isEqualTo(Cluster.LbPolicy.ROUND_ROBIN);
  }

  private static ServiceEndpoints externalName(String host, List<Port> declared) {
    return new ServiceEndpoints(
        CART,
        7,
        List.of(),
        declared,
        ServiceTraffic.of(null, false, false, host),
        TopologyDecision.NONE);
  }

  private static Cluster clusterOf(String name, ServiceEndpoints service) {
    return XdsResources.cluster(name, XdsNames.parse(name), Optional.of(service));
  }

  /**
   * Checked field by field against Envoy's {@code cluster.proto} (Envoy cannot run here): a
   * LOGICAL_DNS cluster needs {@code load_assignment} with exactly one locality holding one
   * endpoint (Envoy rejects more: "LOGICAL_DNS clusters must have a single locality_lb_endpoint and
   * a single lb_endpoint"), whose socket address is the host to resolve and a {@code port_value},
   * no {@code eds_cluster_config}, and a {@code dns_lookup_family}; grpc-java and grpc-js-xds check
   * the same shape and a ROUND_ROBIN policy.
   */
  @Test
  void anExternalNameServicesPortIsALogicalDnsClusterToItsExternalName() {
    ServiceEndpoints alias = externalName("db.example.com", List.of(new Port("sql", 5432, "TCP")));
    for (String name :
        List.of(
            "cart.shop.svc.cluster.local:5432",
            "cart.shop.svc.cluster.local:sql",
            "cart.shop.svc.cluster.local")) {
      Cluster cluster = clusterOf(name, alias);
      assertThat(cluster.getName()).isEqualTo(name);
      assertThat(cluster.getType()).isEqualTo(Cluster.DiscoveryType.LOGICAL_DNS);
      assertThat(cluster.hasEdsClusterConfig()).isFalse();
      assertThat(cluster.getLbPolicy()).isEqualTo(Cluster.LbPolicy.ROUND_ROBIN);
      assertThat(cluster.getDnsLookupFamily()).isEqualTo(Cluster.DnsLookupFamily.V4_PREFERRED);
      assertThat(cluster.getConnectTimeout().getSeconds()).isEqualTo(5);
      ClusterLoadAssignment load = cluster.getLoadAssignment();
      assertThat(load.getClusterName()).isEqualTo(name);
      assertThat(load.getEndpointsList()).singleElement();
      LocalityLbEndpoints locality = load.getEndpoints(0);
      assertThat(locality.getLbEndpointsList()).singleElement();
      var address = locality.getLbEndpoints(0).getEndpoint().getAddress().getSocketAddress();
      assertThat(address.getAddress()).isEqualTo("db.example.com");
      assertThat(address.getPortSpecifierCase())
          .isEqualTo(io.envoyproxy.envoy.config.core.v3.SocketAddress.PortSpecifierCase.PORT_VALUE);
      assertThat(address.getPortValue()).isEqualTo(5432);
      assertThat(address.getResolverName()).isEmpty();
    }
    // A port number is the external host's port, declared or not (a CNAME carries no ports).
    assertThat(
            clusterOf("cart.shop.svc.cluster.local:443", alias)
                .getLoadAssignment()
                .getEndpoints(0)
                .getLbEndpoints(0)
                .getEndpoint()
                .getAddress()
                .getSocketAddress()
                .getPortValue())
        .isEqualTo(443);
    // A port name it does not declare names nothing: the EDS cluster, whose assignment drops.
    assertThat(clusterOf("cart.shop.svc.cluster.local:web", alias).getType())
        .isEqualTo(Cluster.DiscoveryType.EDS);
    // Any other Service's cluster stays EDS.
    assertThat(
            clusterOf(
                    "cart.shop.svc.cluster.local:5432",
                    service(List.of(), List.of(new Port("sql", 5432, "TCP"))))
                .getType())
        .isEqualTo(Cluster.DiscoveryType.EDS);
  }

  @Test
  void aHeadlessServiceWithoutPortsRoutesAPortNumberToEachPodOnThatPort() {
    // Its slices carry no ports (ports: null): the endpoints have none.
    ServiceEndpoints headless =
        new ServiceEndpoints(
            CART,
            7,
            List.of(
                endpoint("10.0.0.1", "a", List.of(), true),
                endpoint("10.0.0.2", "a", List.of(), true)),
            List.of(),
            ServiceTraffic.of(null, false, true, null),
            TopologyDecision.NONE);
    assertThat(addresses(assignment("cart.shop.svc.cluster.local:5432", headless)))
        .containsExactly("10.0.0.1:5432", "10.0.0.2:5432");
    // No port, or a port name: nothing to look it up in.
    assertThat(addresses(assignment("cart.shop.svc.cluster.local", headless))).isEmpty();
    assertThat(addresses(assignment("cart.shop.svc.cluster.local:sql", headless))).isEmpty();
    // The same endpoints of a Service not known to be headless: no port to route to.
    ServiceEndpoints unknown = new ServiceEndpoints(CART, 7, headless.endpoints(), List.of());
    assertThat(addresses(assignment("cart.shop.svc.cluster.local:5432", unknown))).isEmpty();
  }

  @Test
  void theServicePortNumberOrNameSelectsEachEndpointsTargetPort() {
    // A named targetPort: the pods serve "grpc" on different numbers.
    ServiceEndpoints service =
        service(
            List.of(
                endpoint("10.0.0.1", "a", List.of(new Port("grpc", 9090, "TCP")), true),
                endpoint("10.0.0.2", "a", List.of(new Port("grpc", 9191, "TCP")), true)),
            List.of(new Port("grpc", 8080, "TCP"), new Port("metrics", 9100, "TCP")));
    assertThat(addresses(assignment("cart.shop:8080", service)))
        .containsExactly("10.0.0.1:9090", "10.0.0.2:9191");
    assertThat(addresses(assignment("cart.shop:grpc", service)))
        .containsExactly("10.0.0.1:9090", "10.0.0.2:9191");
    assertThat(addresses(assignment("cart.shop:9100", service))).isEmpty();
    assertThat(addresses(assignment("cart.shop:9090", service)))
        .as("a target port number is not a Service port")
        .isEmpty();
    assertThat(addresses(assignment("cart.shop", service)))
        .as("no port named, and two to choose from")
        .isEmpty();
  }

  @Test
  void withOnePortNoneNeedBeNamed() {
    ServiceEndpoints service =
        service(
            List.of(endpoint("10.0.0.1", "a", List.of(new Port("", 9090, "TCP")), true)),
            List.of(new Port("", 80, "TCP")));
    assertThat(addresses(assignment("cart.shop", service))).containsExactly("10.0.0.1:9090");
  }

  @Test
  void servingTerminatingEndpointsAreHealthyOnlyWhileThePortHasNoReadyOne() {
    List<Port> grpc = List.of(new Port("grpc", 9090, "TCP"));
    List<Port> http = List.of(new Port("http", 8000, "TCP"));
    ServiceEndpoints service =
        service(
            List.of(
                endpoint("10.0.0.1", "a", grpc, true),
                endpoint("10.0.0.2", "a", grpc, false),
                endpoint("10.0.0.3", "a", http, false),
                new Endpoint("10.0.0.4", http, "a", "node", "pod-4", false, false, true)),
            List.of(new Port("grpc", 8080, "TCP"), new Port("http", 80, "TCP")));
    // grpc has a ready endpoint: the terminating one drains.
    assertThat(assignment("cart.shop:8080", service).getEndpoints(0).getLbEndpointsList())
        .extracting(LbEndpoint::getHealthStatus)
        .containsExactly(HealthStatus.HEALTHY, HealthStatus.DRAINING);
    // http has none: its serving terminating endpoint is the fallback, and one that no longer
    // serves is left out.
    ClusterLoadAssignment fallback = assignment("cart.shop:80", service);
    assertThat(XdsResources.dropsEverything(fallback)).isFalse();
    assertThat(fallback.getEndpoints(0).getLbEndpointsList())
        .extracting(
            e -> e.getEndpoint().getAddress().getSocketAddress().getAddress(),
            LbEndpoint::getHealthStatus)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("10.0.0.3", HealthStatus.HEALTHY));
  }

  @Test
  void oneLocalityPerZoneWeightedByItsEndpointsAndTerminatingOnesDrain() {
    List<Port> grpc = List.of(new Port("grpc", 9090, "TCP"));
    ServiceEndpoints service =
        service(
            List.of(
                endpoint("10.0.0.1", "a", grpc, true),
                endpoint("10.0.0.2", "b", grpc, true),
                endpoint("10.0.0.3", "b", grpc, false),
                endpoint("10.0.0.4", null, grpc, true)),
            List.of(new Port("grpc", 8080, "TCP")));
    ClusterLoadAssignment assignment = assignment("cart.shop:8080", service);
    assertThat(assignment.getEndpointsList())
        .extracting(l -> l.getLocality().getZone(), l -> l.getLoadBalancingWeight().getValue())
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("", 1),
            org.assertj.core.groups.Tuple.tuple("a", 1),
            org.assertj.core.groups.Tuple.tuple("b", 2));
    LocalityLbEndpoints zoneB = assignment.getEndpoints(2);
    assertThat(zoneB.getLbEndpointsList())
        .extracting(LbEndpoint::getHealthStatus)
        .containsExactly(HealthStatus.HEALTHY, HealthStatus.DRAINING);
    assertThat(assignment.getEndpointsList())
        .allSatisfy(l -> assertThat(l.getLoadBalancingWeight().getValue()).isPositive());
  }

  @Test
  void aMissingServiceDropsEveryCallBesideAPlaceholderNoCallReaches() {
    ClusterLoadAssignment assignment =
        XdsResources.assignment(
            "cart.shop.svc.cluster.local:8080",
            XdsNames.parse("cart.shop.svc.cluster.local:8080"),
            Optional.empty());
    assertThat(assignment.getClusterName()).isEqualTo("cart.shop.svc.cluster.local:8080");
    // grpc-java honours a drop policy only beside a healthy endpoint (GrpcJavaEdsBehaviourTest).
    assertThat(assignment.getEndpoints(0).getLbEndpoints(0).getHealthStatus())
        .isEqualTo(HealthStatus.HEALTHY);
    assertThat(assignment.getEndpoints(0).getLoadBalancingWeight().getValue()).isPositive();
    ClusterLoadAssignment.Policy.DropOverload drop = assignment.getPolicy().getDropOverloads(0);
    assertThat(drop.getCategory()).isEqualTo(XdsResources.NO_SUCH_SERVICE);
    assertThat(drop.getDropPercentage().getNumerator()).isEqualTo(100);
    assertThat(drop.getDropPercentage().getDenominator())
        .isEqualTo(io.envoyproxy.envoy.type.v3.FractionalPercent.DenominatorType.HUNDRED);
  }

  @Test
  void aServicePortWithNoReadyEndpointSaysSo() {
    ServiceEndpoints service = service(List.of(), List.of(new Port("grpc", 8080, "TCP")));
    ClusterLoadAssignment assignment = assignment("cart.shop:8080", service);
    assertThat(addresses(assignment)).isEmpty();
    assertThat(assignment.getPolicy().getDropOverloads(0).getCategory())
        .isEqualTo(XdsResources.NO_READY_ENDPOINTS);
    assertThat(XdsResources.dropsEverything(assignment("cart.shop:9999", service))).isTrue();
  }

  private static final List<Port> GRPC = List.of(new Port("grpc", 8080, "TCP"));

  private static Endpoint placed(String ip, String node, String zone, EndpointHints hints) {
    return new Endpoint(ip, GRPC, zone, hints, node, "pod-" + ip, true, true, false);
  }

  private static ServiceEndpoints decided(
      List<Endpoint> endpoints, ServiceTraffic traffic, NodeLocality here) {
    ServiceState state = ServiceState.decided(endpoints, GRPC, traffic, here);
    return new ServiceEndpoints(
        CART, 7, state.endpoints(), state.servicePorts(), state.traffic(), state.topology());
  }

  /** Each priority's addresses, in priority order. */
  private static List<List<String>> priorities(ClusterLoadAssignment assignment) {
    List<List<String>> byPriority = new java.util.ArrayList<>();
    for (var locality : assignment.getEndpointsList()) {
      while (byPriority.size() <= locality.getPriority()) {
        byPriority.add(new java.util.ArrayList<>());
      }
      for (LbEndpoint endpoint : locality.getLbEndpointsList()) {
        byPriority
            .get(locality.getPriority())
            .add(endpoint.getEndpoint().getAddress().getSocketAddress().getAddress());
      }
    }
    return byPriority;
  }

  @Test
  void theChosenSetIsPriorityZeroAndTheRestFollowsSameNodeThenSameZoneThenTheRest() {
    NodeLocality here = new NodeLocality("node-1", "zone-a", null);
    EndpointHints forB = EndpointHints.of(List.of("zone-b"), List.of());
    EndpointHints forA = EndpointHints.of(List.of("zone-a"), List.of());
    // Hinted so that this zone's share goes to 10.0.0.4 in zone-b (the controller balances
    // zones by CPU); this node's own endpoint and its zone's are then lower priorities.
    ServiceEndpoints service =
        decided(
            List.of(
                placed("10.0.0.1", "node-1", "zone-a", forB),
                placed("10.0.0.2", "node-2", "zone-a", forB),
                placed("10.0.0.3", "node-3", "zone-c", forB),
                placed("10.0.0.4", "node-4", "zone-b", forA)),
            ServiceTraffic.of("PreferClose", false),
            here);

    ClusterLoadAssignment assignment = assignment("cart.shop:8080", service);

    assertThat(service.topology().mode()).isEqualTo(TopologyDecision.Mode.SAME_ZONE);
    assertThat(priorities(assignment))
        .containsExactly(
            List.of("10.0.0.4"), List.of("10.0.0.1"), List.of("10.0.0.2"), List.of("10.0.0.3"));
    assertThat(assignment.getEndpointsList())
        .allSatisfy(l -> assertThat(l.getLoadBalancingWeight().getValue()).isPositive());
  }

  @Test
  void prioritiesHaveNoGapsAndNoTopologyIsOnePriority() {
    NodeLocality here = new NodeLocality("node-1", "zone-a", null);
    EndpointHints forA = EndpointHints.of(List.of("zone-a"), List.of());
    ServiceEndpoints zoned =
        decided(
            List.of(
                placed("10.0.0.2", "node-2", "zone-a", forA),
                placed(
                    "10.0.0.3",
                    "node-3",
                    "zone-b",
                    EndpointHints.of(List.of("zone-b"), List.of()))),
            ServiceTraffic.of("PreferClose", false),
            here);
    // Nothing on this node, nothing else in this zone: the rest is priority 1, not 3.
    assertThat(priorities(assignment("cart.shop:8080", zoned)))
        .containsExactly(List.of("10.0.0.2"), List.of("10.0.0.3"));

    ServiceEndpoints plain =
        decided(
            List.of(
                placed("10.0.0.1", "node-1", "zone-a", EndpointHints.NONE),
                placed("10.0.0.2", "node-2", "zone-b", EndpointHints.NONE)),
            ServiceTraffic.DEFAULT,
            here);
    assertThat(priorities(assignment("cart.shop:8080", plain)))
        .containsExactly(List.of("10.0.0.1", "10.0.0.2"));
  }

  @Test
  void internalTrafficPolicyLocalSendsThisNodesEndpointsOnlyAndNoneDropsEveryCall() {
    NodeLocality here = new NodeLocality("node-1", "zone-a", null);
    ServiceEndpoints local =
        decided(
            List.of(
                placed("10.0.0.1", "node-1", "zone-a", EndpointHints.NONE),
                placed("10.0.0.2", "node-2", "zone-a", EndpointHints.NONE)),
            ServiceTraffic.of(null, true),
            here);
    assertThat(priorities(assignment("cart.shop:8080", local)))
        .containsExactly(List.of("10.0.0.1"));

    ServiceEndpoints elsewhere =
        decided(
            List.of(placed("10.0.0.2", "node-2", "zone-a", EndpointHints.NONE)),
            ServiceTraffic.of(null, true),
            here);
    ClusterLoadAssignment none = assignment("cart.shop:8080", elsewhere);
    assertThat(addresses(none)).isEmpty();
    assertThat(none.getPolicy().getDropOverloads(0).getCategory())
        .isEqualTo(XdsResources.NO_NODE_LOCAL_ENDPOINT)
        .isEqualTo("no_node_local_endpoint");
  }

  private static Endpoint draining(String ip, String node) {
    return new Endpoint(
        ip, GRPC, "zone-a", EndpointHints.NONE, node, "pod-" + ip, false, true, true);
  }

  /** Each endpoint sent, as address and health. */
  private static List<String> sent(ClusterLoadAssignment assignment) {
    return assignment.getEndpointsList().stream()
        .flatMap(locality -> locality.getLbEndpointsList().stream())
        .map(
            e ->
                e.getEndpoint().getAddress().getSocketAddress().getAddress()
                    + " "
                    + e.getHealthStatus())
        .toList();
  }

  @Test
  void
      internalTrafficPolicyLocalSendsThisNodesServingTerminatingOnesAsHealthyWhenNoneHereIsReady() {
    NodeLocality here = new NodeLocality("node-1", "zone-a", null);
    // This node's pod is draining while node-2's is ready: kube-proxy keeps to this node's.
    ServiceEndpoints local =
        decided(
            List.of(
                draining("10.0.0.1", "node-1"),
                placed("10.0.0.2", "node-2", "zone-a", EndpointHints.NONE)),
            ServiceTraffic.of(null, true),
            here);

    ClusterLoadAssignment assignment = assignment("cart.shop:8080", local);

    assertThat(XdsResources.dropsEverything(assignment)).isFalse();
    assertThat(sent(assignment)).containsExactly("10.0.0.1 HEALTHY");
  }

  @Test
  void internalTrafficPolicyLocalSendsThisNodesReadyOnesOnlyWhenItHasOne() {
    NodeLocality here = new NodeLocality("node-1", "zone-a", null);
    ServiceEndpoints local =
        decided(
            List.of(
                draining("10.0.0.1", "node-1"),
                placed("10.0.0.2", "node-2", "zone-a", EndpointHints.NONE),
                placed("10.0.0.3", "node-1", "zone-a", EndpointHints.NONE),
                draining("10.0.0.4", "node-2")),
            ServiceTraffic.of(null, true),
            here);

    assertThat(sent(assignment("cart.shop:8080", local))).containsExactly("10.0.0.3 HEALTHY");
  }

  @Test
  void aServiceWithoutLocalStillDrainsServingTerminatingOnesBesideAReadyOne() {
    NodeLocality here = new NodeLocality("node-1", "zone-a", null);
    ServiceEndpoints cluster =
        decided(
            List.of(
                draining("10.0.0.1", "node-1"),
                placed("10.0.0.2", "node-2", "zone-a", EndpointHints.NONE)),
            ServiceTraffic.DEFAULT,
            here);

    assertThat(sent(assignment("cart.shop:8080", cluster)))
        .containsExactly("10.0.0.1 DRAINING", "10.0.0.2 HEALTHY");
  }

  @Test
  void udpPortsAreNotServedToXdsClients() {
    ServiceEndpoints service =
        service(
            List.of(endpoint("10.0.0.1", "a", List.of(new Port("dns", 53, "UDP")), true)),
            List.of(new Port("dns", 53, "UDP")));
    assertThat(addresses(assignment("cart.shop:53", service))).isEmpty();
    assertThat(XdsResources.clusterNames(service)).isEmpty();
  }

  @Test
  void wildcardClustersAreOnePerDeclaredTcpPort() {
    ServiceEndpoints service =
        service(
            List.of(),
            List.of(
                new Port("grpc", 8080, "TCP"),
                new Port("metrics", 9100, "TCP"),
                new Port("dns", 53, "UDP")));
    assertThat(XdsResources.clusterNames(service))
        .containsExactly("cart.shop.svc.cluster.local:8080", "cart.shop.svc.cluster.local:9100");
  }

  @Test
  void aServiceWhosePortsAreNotKnownYetListsNoClusterUntilTheyAre() {
    // Its slice came first: the endpoints carry the port by name, the Service's number is unknown.
    ServiceEndpoints sliceFirst =
        service(
            List.of(endpoint("10.0.0.1", "a", List.of(new Port("http", 8080, "TCP")), true)),
            List.of());
    ServiceEndpoints serviceCame =
        service(sliceFirst.endpoints(), List.of(new Port("http", 80, "TCP")));
    assertThat(XdsResources.clusterNames(sliceFirst)).as("before the Service").isEmpty();
    assertThat(XdsResources.clusterNames(serviceCame))
        .containsExactly("cart.shop.svc.cluster.local:80");
  }

  @Test
  void aDualStackEndpointSendsItsPrimaryAddressAndTheOthersAsAdditionalAddressesOnItsPort() {
    List<Port> http = List.of(new Port("http", 8080, "TCP"));
    Endpoint dual =
        endpoint("fd00::1", "z1", http, true).withAdditionalAddresses(List.of("10.0.0.1"));
    Endpoint single = endpoint("10.0.0.2", "z1", http, true);

    ClusterLoadAssignment assignment =
        assignment(
            "cart.shop.svc.cluster.local:8080",
            service(List.of(single, dual), List.of(new Port("http", 8080, "TCP"))));

    List<LbEndpoint> sent = assignment.getEndpoints(0).getLbEndpointsList();
    assertThat(addresses(assignment)).containsExactly("10.0.0.2:8080", "fd00::1:8080");
    var first = sent.get(1).getEndpoint();
    assertThat(first.getAdditionalAddressesList())
        .extracting(a -> a.getAddress().getSocketAddress())
        .extracting(a -> a.getAddress() + ":" + a.getPortValue())
        .containsExactly("10.0.0.1:8080");
    assertThat(sent.get(0).getEndpoint().getAdditionalAddressesList()).isEmpty();
  }
}
