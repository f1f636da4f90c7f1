package dev.routesync.xds;

import static dev.routesync.testing.AdsClient.CDS;
import static dev.routesync.testing.AdsClient.EDS;
import static dev.routesync.testing.AdsClient.LDS;
import static dev.routesync.testing.AdsClient.assignments;
import static dev.routesync.testing.AdsClient.clusters;
import static dev.routesync.testing.AdsClient.listeners;
import static dev.routesync.testing.AdsClient.routedCluster;
import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.testing.AdsClient;
import dev.routesync.testing.AgentHarness;
import dev.routesync.testing.GrpcJavaClient;
import dev.routesync.testing.MockCluster;
import dev.routesync.testing.Slices.Conditions;
import dev.routesync.testing.Slices.Pod;
import dev.routesync.testing.TcpProxy;
import dev.routesync.testing.XdsAgent;
import dev.routesync.testing.XdsObjects;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.config.core.v3.HealthStatus;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.config.endpoint.v3.LbEndpoint;
import io.envoyproxy.envoy.config.endpoint.v3.LocalityLbEndpoints;
import io.envoyproxy.envoy.config.listener.v3.Listener;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpFilter;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's state-of-the-world ADS server against the xDS protocol, from a scripted client
 * ({@link AdsClient}) that sends exactly the requests a test writes: ACK, NACK and nonces, at most
 * one unacknowledged response per type, resubscription, wildcard CDS, nothing before the first
 * sync, versions, localities and health, and names that do not exist.
 *
 * <p>The cluster: {@code cart.shop} declares {@code http} 8080 and {@code grpc} 9090 (named target
 * ports its pods resolve to 8081 and 9091), with three pods in zone-a and one in zone-b; {@code
 * pay.shop} and {@code ship.shop} each declare {@code http} 80 (pods on 8080).
 */
@Timeout(60)
class AdsConformanceTest {

  private static final String CART_HTTP = "cart.shop.svc.cluster.local:8080";
  private static final String CART_GRPC = "cart.shop.svc.cluster.local:9090";
  private static final String PAY = "pay.shop.svc.cluster.local:80";
  private static final String SHIP = "ship.shop.svc.cluster.local:80";

  /** Long enough that a response the server was going to send would have come. */
  private static final Duration QUIET = Duration.ofSeconds(1);

  private static final Duration CONVERGE = Duration.ofSeconds(10);

  @TempDir Path dir;

  private MockCluster cluster;
  private TcpProxy proxy;
  private AgentHarness agent;
  private GrpcJavaClient grpc;
  private final List<AdsClient> streams = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    cluster = new MockCluster();
    proxy = new TcpProxy(cluster.port());
    cluster.apply(
        XdsObjects.service(
            "shop", "cart", XdsObjects.port("http", 8080), XdsObjects.port("grpc", 9090)));
    cluster.apply(
        XdsObjects.slice(
            "shop",
            "cart-1",
            "cart",
            8081,
            "grpc",
            9091,
            List.of(
                pod("cart-1", "10.1.0.1", "zone-a", Conditions.READY),
                pod("cart-2", "10.1.0.2", "zone-a", Conditions.READY),
                pod("cart-3", "10.1.0.3", "zone-a", Conditions.READY),
                pod("cart-4", "10.1.0.4", "zone-b", Conditions.READY))));
    for (String name : List.of("pay", "ship")) {
      cluster.apply(XdsObjects.service("shop", name, XdsObjects.port("http", 80)));
      scale(name, 1);
    }
  }

  private void startAgent() throws Exception {
    // The zone is given, so no lookup of the Node runs beside the tests: its answer (the mock has
    // no Node) decides every Service again, and a response it caused could land in a test's quiet
    // window (seen under load: a NACK "answered" by the lookup's version).
    agent =
        AgentHarness.startWith(
                proxy.url(),
                c -> XdsAgent.on(dir.resolve("rs.sock"), 0).apply(c).withZone("zone-a"),
                0)
            .cutOnClose(proxy);
    grpc = new GrpcJavaClient(agent.socket());
  }

  @AfterEach
  void stop() throws Exception {
    streams.forEach(AdsClient::close);
    if (grpc != null) {
      grpc.close();
    }
    cluster.close();
    if (agent != null) {
      agent.close();
    }
    proxy.close();
  }

  @Test
  void listenerNamesAsClientsSendThemRouteToCanonicalClusters() throws Exception {
    startAgent();
    AdsClient ads = open();
    Map<String, String> expected = new TreeMap<>();
    expected.put("cart.shop:8080", CART_HTTP);
    expected.put("cart.shop.svc:8080", CART_HTTP);
    expected.put("cart.shop.svc.cluster.local:9090", CART_GRPC);
    expected.put("cart.shop:http", "cart.shop.svc.cluster.local:http");
    expected.put("pay.shop", "pay.shop.svc.cluster.local");
    expected.put("pay.shop.svc", "pay.shop.svc.cluster.local");
    expected.put("pay.shop.svc.cluster.local", "pay.shop.svc.cluster.local");
    ads.subscribe(LDS, expected.keySet());

    DiscoveryResponse response = ads.takeAndAck(LDS);
    Map<String, Listener> byName = byName(listeners(response), Listener::getName);
    assertThat(byName.keySet()).containsExactlyInAnyOrderElementsOf(expected.keySet());
    for (Map.Entry<String, String> name : expected.entrySet()) {
      Listener listener = byName.get(name.getKey());
      assertThat(routedCluster(listener)).as(name.getKey()).isEqualTo(name.getValue());
      // grpc-java NACKs an HttpConnectionManager without the router filter.
      assertThat(AdsClient.connectionManager(listener).getHttpFiltersList())
          .extracting(HttpFilter::getName)
          .as(name.getKey())
          .contains("envoy.filters.http.router");
    }

    ads.subscribe(CDS, CART_HTTP, "cart.shop.svc.cluster.local:http", "pay.shop.svc.cluster.local");
    Map<String, Cluster> clusters = byName(clusters(ads.takeAndAck(CDS)), Cluster::getName);
    assertThat(clusters.keySet())
        .containsExactlyInAnyOrder(
            CART_HTTP, "cart.shop.svc.cluster.local:http", "pay.shop.svc.cluster.local");
    for (Cluster cluster : clusters.values()) {
      assertThat(cluster.getType()).as(cluster.getName()).isEqualTo(Cluster.DiscoveryType.EDS);
      assertThat(cluster.getEdsClusterConfig().getEdsConfig().hasAds())
          .as(cluster.getName())
          .isTrue();
    }

    // A port by name, and the only port of a Service named without one, map to the same
    // endpoints as the port number: each endpoint's own target port.
    Map<String, ClusterLoadAssignment> assignments =
        takeAssignments(
            ads,
            CART_HTTP,
            "cart.shop.svc.cluster.local:http",
            CART_GRPC,
            "pay.shop.svc.cluster.local");
    assertThat(addresses(assignments.get(CART_HTTP)))
        .containsExactlyInAnyOrder(
            "10.1.0.1:8081", "10.1.0.2:8081", "10.1.0.3:8081", "10.1.0.4:8081");
    assertThat(addresses(assignments.get("cart.shop.svc.cluster.local:http")))
        .containsExactlyInAnyOrderElementsOf(addresses(assignments.get(CART_HTTP)));
    assertThat(addresses(assignments.get(CART_GRPC)))
        .containsExactlyInAnyOrder(
            "10.1.0.1:9091", "10.1.0.2:9091", "10.1.0.3:9091", "10.1.0.4:9091");
    assertThat(addresses(assignments.get("pay.shop.svc.cluster.local")))
        .containsExactly("10.3.0.1:8080");
  }

  @Test
  void oneLocalityPerZoneWeightedByItsEndpoints() throws Exception {
    startAgent();
    AdsClient ads = open();
    ads.subscribe(EDS, CART_HTTP);
    ClusterLoadAssignment cart = assignments(ads.takeAndAck(EDS)).get(0);
    assertThat(cart.getClusterName()).isEqualTo(CART_HTTP);
    Map<String, LocalityLbEndpoints> zones =
        byName(cart.getEndpointsList(), l -> l.getLocality().getZone());
    assertThat(zones.keySet()).containsExactlyInAnyOrder("zone-a", "zone-b");
    assertThat(zones.get("zone-a").getLoadBalancingWeight().getValue()).isEqualTo(3);
    assertThat(zones.get("zone-a").getLbEndpointsCount()).isEqualTo(3);
    assertThat(zones.get("zone-b").getLoadBalancingWeight().getValue()).isEqualTo(1);
    assertThat(zones.get("zone-b").getLbEndpointsCount()).isEqualTo(1);
    assertThat(cart.getEndpointsList())
        .flatExtracting(LocalityLbEndpoints::getLbEndpointsList)
        .extracting(LbEndpoint::getHealthStatus)
        .containsOnly(HealthStatus.HEALTHY);
  }

  /**
   * The table keeps serving-terminating endpoints only while none is ready (kube-proxy's fallback,
   * see EndpointMerger), so a Service whose every pod is terminating shows them, and they are the
   * fallback clients route to: HEALTHY, since Envoy and gRPC send nothing to DRAINING endpoints; an
   * endpoint that is neither ready nor serving is not published at all.
   */
  @Test
  void servingTerminatingEndpointsAreTheFallbackWhenNoneIsReady() throws Exception {
    cluster.apply(
        XdsObjects.slice(
            "shop",
            "pay-1",
            "pay",
            8080,
            List.of(
                pod("pay-1", "10.3.0.1", "zone-a", Conditions.TERMINATING_SERVING),
                pod("pay-2", "10.3.0.2", "zone-a", Conditions.TERMINATING_SERVING),
                pod("pay-3", "10.3.0.3", "zone-a", Conditions.TERMINATING))));
    startAgent();
    AdsClient ads = open();
    ads.subscribe(EDS, PAY);
    ClusterLoadAssignment pay = assignments(ads.takeAndAck(EDS)).get(0);
    Map<String, HealthStatus> health = new TreeMap<>();
    for (LocalityLbEndpoints locality : pay.getEndpointsList()) {
      assertThat(locality.getLoadBalancingWeight().getValue()).isPositive();
      for (LbEndpoint endpoint : locality.getLbEndpointsList()) {
        health.put(address(endpoint), endpoint.getHealthStatus());
      }
    }
    assertThat(health)
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("10.3.0.1:8080", HealthStatus.HEALTHY, "10.3.0.2:8080", HealthStatus.HEALTHY));
  }

  @Test
  void aDeletedServiceGetsAnAssignmentThatDropsEveryCall() throws Exception {
    startAgent();
    AdsClient ads = open();
    ads.subscribe(EDS, PAY);
    assertThat(addresses(assignments(ads.takeAndAck(EDS)).get(0))).hasSize(1);

    // As the API server does: the Service goes, and its slices with it (garbage collection).
    cluster.delete(XdsObjects.service("shop", "pay", XdsObjects.port("http", 80)));
    cluster.delete(XdsObjects.slice("shop", "pay-1", "pay", 8080, List.of()));
    // The two deletions may publish apart: first no ready endpoint (or no ports), then no Service.
    ClusterLoadAssignment gone = assignments(ads.takeAndAck(EDS)).get(0);
    assertThat(gone.getClusterName()).isEqualTo(PAY);
    assertThat(addresses(gone)).isEmpty();
    if (!gone.getPolicy().getDropOverloads(0).getCategory().equals(XdsResources.NO_SUCH_SERVICE)) {
      gone = assignments(ads.takeAndAck(EDS)).get(0);
      assertThat(addresses(gone)).isEmpty();
    }
    assertThat(gone.getPolicy().getDropOverloads(0).getCategory())
        .isEqualTo(XdsResources.NO_SUCH_SERVICE);
  }

  /** The contract grpc-java needs to fail a new channel's calls at once; see XdsInteropTest. */
  @Test
  void aServiceThatDoesNotExistGetsAListenerAClusterAndAnAssignmentThatDropsAtOnce()
      throws Exception {
    startAgent();
    AdsClient ads = open();
    Duration fast = Duration.ofSeconds(2);
    ads.subscribe(LDS, "nosuch.shop:8080");
    Listener listener = listeners(ads.take(LDS, fast)).get(0);
    assertThat(listener.getName()).isEqualTo("nosuch.shop:8080");
    assertThat(routedCluster(listener)).isEqualTo("nosuch.shop.svc.cluster.local:8080");

    ads.subscribe(CDS, "nosuch.shop.svc.cluster.local:8080");
    assertThat(clusters(ads.take(CDS, fast)))
        .extracting(Cluster::getName)
        .containsExactly("nosuch.shop.svc.cluster.local:8080");

    // A port the Service does not declare: no endpoint serves it.
    ads.subscribe(EDS, "nosuch.shop.svc.cluster.local:8080", "cart.shop.svc.cluster.local:7000");
    Map<String, ClusterLoadAssignment> empty = new HashMap<>();
    while (empty.size() < 2) {
      DiscoveryResponse response = ads.take(EDS, fast);
      ads.ack(response);
      assignments(response).forEach(a -> empty.put(a.getClusterName(), a));
    }
    assertThat(empty.keySet())
        .containsExactlyInAnyOrder(
            "nosuch.shop.svc.cluster.local:8080", "cart.shop.svc.cluster.local:7000");
    assertThat(empty.values())
        .allSatisfy(a -> assertThat(XdsResources.dropsEverything(a)).isTrue());
  }

  @Test
  void aNackIsNotAnsweredWithTheSameContentAndTheNextChangeIsSent() throws Exception {
    startAgent();
    AdsClient ads = open();
    ads.subscribe(EDS, PAY);
    DiscoveryResponse rejected = ads.take(EDS);
    ads.nack(rejected, "test: rejected on purpose");
    ads.expectQuiet(QUIET);

    scale("pay", 2);
    DiscoveryResponse next = ads.take(EDS);
    assertThat(next.getNonce()).isNotEqualTo(rejected.getNonce());
    assertThat(version(next)).isGreaterThan(version(rejected));
    assertThat(addresses(assignments(next).get(0))).hasSize(2);
  }

  @Test
  void atMostOneUnacknowledgedResponseAndAStaleNonceAcknowledgesNothing() throws Exception {
    startAgent();
    AdsClient ads = open();
    ads.subscribe(EDS, PAY);
    DiscoveryResponse first = ads.takeAndAck(EDS);
    assertThat(addresses(assignments(first).get(0))).hasSize(1);

    scale("pay", 2);
    DiscoveryResponse second = ads.take(EDS); // not acknowledged
    assertThat(addresses(assignments(second).get(0))).hasSize(2);

    scale("pay", 3);
    awaitPublished("pay", 3);
    ads.expectQuiet(QUIET); // the second is still unacknowledged
    // An ACK of the first response's nonce is stale: it acknowledges nothing.
    ads.send(
        DiscoveryRequest.newBuilder()
            .setTypeUrl(EDS)
            .addResourceNames(PAY)
            .setVersionInfo(first.getVersionInfo())
            .setResponseNonce(first.getNonce())
            .build());
    ads.expectQuiet(QUIET);

    ads.ack(second);
    DiscoveryResponse third = ads.take(EDS);
    assertThat(addresses(assignments(third).get(0))).hasSize(3);
    assertThat(version(third)).isGreaterThan(version(second));
    assertThat(version(second)).isGreaterThan(version(first));
  }

  @Test
  void resubscribingWithFewerNamesResendsNothingAndDroppedNamesAreNotFollowed() throws Exception {
    startAgent();
    AdsClient ads = open();
    takeAssignments(ads, CART_HTTP, PAY, SHIP);

    ads.subscribe(EDS, CART_HTTP, PAY);
    ads.expectQuiet(QUIET);

    scale("ship", 2);
    awaitPublished("ship", 2);
    ads.expectQuiet(QUIET);

    scale("pay", 2);
    DiscoveryResponse changed = ads.takeAndAck(EDS);
    assertThat(assignments(changed))
        .extracting(ClusterLoadAssignment::getClusterName)
        .as("only the changed assignment")
        .containsExactly(PAY);

    // Once more with a barrier rather than a quiet period (under load a write can publish twice):
    // a stream's responses keep their order, so any about SHIP would come before PAY's third pod.
    scale("ship", 3);
    awaitPublished("ship", 3);
    scale("pay", 3);
    while (true) {
      List<ClusterLoadAssignment> got = assignments(ads.takeAndAck(EDS));
      assertThat(got)
          .extracting(ClusterLoadAssignment::getClusterName)
          .as("a dropped name is not followed")
          .doesNotContain(SHIP);
      if (got.stream().anyMatch(a -> a.getClusterName().equals(PAY) && addresses(a).size() == 3)) {
        break;
      }
    }
  }

  @Test
  void wildcardClusterDiscoveryListsEveryServicePort() throws Exception {
    startAgent();
    AdsClient ads = open();
    ads.subscribe(CDS, List.of());
    assertThat(clusters(ads.takeAndAck(CDS)))
        .extracting(Cluster::getName)
        .containsExactlyInAnyOrder(CART_HTTP, CART_GRPC, PAY, SHIP);

    // The Service, then its slice. The agent's two watches may still deliver them in either
    // order; the CDS list waits for the Service's ports either way, so the one response that
    // grows the list is taken once the table holds both.
    cluster.apply(XdsObjects.service("shop", "dock", XdsObjects.port("http", 80)));
    scale("dock", 1);
    awaitPortsKnown("dock");
    DiscoveryResponse grown = ads.takeAndAck(CDS);
    assertThat(clusters(grown))
        .extracting(Cluster::getName)
        .as("every cluster, in every CDS response")
        .containsExactlyInAnyOrder(
            CART_HTTP, CART_GRPC, PAY, SHIP, "dock.shop.svc.cluster.local:80");
  }

  @Test
  void aSliceBeforeItsServiceNeverNamesAClusterAfterThePortName() throws Exception {
    startAgent();
    AdsClient ads = open();
    ads.subscribe(CDS, List.of());
    ads.takeAndAck(CDS);
    int received = ads.received();

    // The slice alone: the table has the Service's endpoints, not its declared ports.
    scale("dock", 1);
    Awaitility.await("dock's endpoints in the table")
        .atMost(CONVERGE)
        .until(() -> agent.service("shop", "dock").isPresent());
    assertThat(agent.service("shop", "dock").get().servicePorts()).isEmpty();
    ads.expectQuiet(QUIET);
    assertThat(ads.received())
        .as("no CDS response for a Service whose ports are unknown")
        .isEqualTo(received);

    cluster.apply(XdsObjects.service("shop", "dock", XdsObjects.port("http", 80)));
    awaitPortsKnown("dock");
    assertThat(clusters(ads.takeAndAck(CDS)))
        .extracting(Cluster::getName)
        .containsExactlyInAnyOrder(
            CART_HTTP, CART_GRPC, PAY, SHIP, "dock.shop.svc.cluster.local:80");
    ads.expectQuiet(QUIET); // and no rename after
  }

  private void awaitPortsKnown(String name) {
    Awaitility.await(name + "'s ports in the table")
        .atMost(CONVERGE)
        .until(
            () ->
                agent
                    .service("shop", name)
                    .map(service -> !service.servicePorts().isEmpty())
                    .orElse(false));
  }

  @Test
  void nothingIsSentBeforeTheFirstSync() throws Exception {
    // The agent cannot list Services: its first sync waits, and its table stays untrusted.
    cluster.forbidServices(true);
    agent = XdsAgent.launch(proxy.url(), dir.resolve("rs.sock"), 0).cutOnClose(proxy);
    grpc = new GrpcJavaClient(agent.socket());
    AdsClient ads = open();
    ads.subscribe(LDS, "cart.shop:8080");
    ads.subscribe(CDS, CART_HTTP);
    ads.subscribe(EDS, CART_HTTP);
    ads.expectQuiet(QUIET);
    assertThat(agent.agent().initialSync().isComplete()).isFalse();

    cluster.forbidServices(false);
    assertThat(listeners(ads.take(LDS)))
        .extracting(Listener::getName)
        .containsExactly("cart.shop:8080");
    assertThat(clusters(ads.take(CDS))).extracting(Cluster::getName).containsExactly(CART_HTTP);
    assertThat(addresses(assignments(ads.take(EDS)).get(0))).hasSize(4);
  }

  @Test
  void versionInfoIsTheTableVersionAndGrows() throws Exception {
    startAgent();
    AdsClient ads = open();
    ads.subscribe(EDS, PAY);
    DiscoveryResponse first = ads.takeAndAck(EDS);
    ads.subscribe(LDS, "pay.shop:80");
    DiscoveryResponse listener = ads.takeAndAck(LDS);
    assertThat(version(first)).isEqualTo(agent.table().version());
    assertThat(version(listener)).isEqualTo(agent.table().version());

    scale("pay", 2);
    DiscoveryResponse second = ads.takeAndAck(EDS);
    assertThat(version(second)).isGreaterThan(version(first));
    assertThat(version(second)).isEqualTo(agent.table().version());
  }

  private AdsClient open() {
    AdsClient ads = AdsClient.open(grpc.channel(), AdsClient.node("node-a", "zone-a"));
    streams.add(ads);
    return ads;
  }

  /**
   * Subscribes EDS to {@code names}, then takes and acknowledges responses until each has come; the
   * assignments by cluster name. A server may send them together or one response at a time.
   */
  private static Map<String, ClusterLoadAssignment> takeAssignments(
      AdsClient ads, String... names) {
    ads.subscribe(EDS, names);
    Map<String, ClusterLoadAssignment> seen = new HashMap<>();
    while (!seen.keySet().containsAll(Set.of(names))) {
      DiscoveryResponse response = ads.takeAndAck(EDS);
      assignments(response).forEach(a -> seen.put(a.getClusterName(), a));
    }
    return seen;
  }

  /** Gives Service {@code name} exactly {@code pods} ready pods in zone-a (one slice). */
  private void scale(String name, int pods) {
    int base =
        switch (name) {
          case "pay" -> 3;
          case "ship" -> 4;
          default -> 5;
        };
    List<Pod> list = new ArrayList<>();
    for (int i = 1; i <= pods; i++) {
      list.add(pod(name + "-" + i, "10." + base + ".0." + i, "zone-a", Conditions.READY));
    }
    cluster.apply(XdsObjects.slice("shop", name + "-1", name, 8080, list));
  }

  private void awaitPublished(String name, int pods) {
    Awaitility.await(name + " published with " + pods + " endpoints")
        .atMost(CONVERGE)
        .until(() -> agent.ips("shop", name).size() == pods);
  }

  private static Pod pod(String name, String ip, String zone, Conditions conditions) {
    return new Pod(name, ip, "node-a", zone, conditions);
  }

  private static long version(DiscoveryResponse response) {
    return Long.parseLong(response.getVersionInfo());
  }

  /** The endpoints calls can reach: none when the assignment drops every call. */
  private static List<String> addresses(ClusterLoadAssignment assignment) {
    if (XdsResources.dropsEverything(assignment)) {
      return List.of();
    }
    return assignment.getEndpointsList().stream()
        .flatMap(l -> l.getLbEndpointsList().stream())
        .map(AdsConformanceTest::address)
        .toList();
  }

  private static String address(LbEndpoint endpoint) {
    var socket = endpoint.getEndpoint().getAddress().getSocketAddress();
    return socket.getAddress() + ":" + socket.getPortValue();
  }

  private static <T> Map<String, T> byName(List<T> items, Function<T, String> name) {
    Map<String, T> byName = items.stream().collect(Collectors.toMap(name, i -> i));
    assertThat(byName).as("names are unique").hasSize(items.size());
    return byName;
  }
}
