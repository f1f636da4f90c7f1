package dev.routesync.xds;

import com.google.protobuf.Any;
import com.google.protobuf.UInt32Value;
import dev.routesync.table.Endpoint;
import dev.routesync.table.Port;
import dev.routesync.table.RoutingTable;
import dev.routesync.table.ServiceEndpoints;
import dev.routesync.table.TopologyDecision;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.config.core.v3.Address;
import io.envoyproxy.envoy.config.core.v3.AggregatedConfigSource;
import io.envoyproxy.envoy.config.core.v3.ApiVersion;
import io.envoyproxy.envoy.config.core.v3.ConfigSource;
import io.envoyproxy.envoy.config.core.v3.HealthStatus;
import io.envoyproxy.envoy.config.core.v3.Locality;
import io.envoyproxy.envoy.config.core.v3.SocketAddress;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.config.endpoint.v3.LbEndpoint;
import io.envoyproxy.envoy.config.endpoint.v3.LocalityLbEndpoints;
import io.envoyproxy.envoy.config.listener.v3.ApiListener;
import io.envoyproxy.envoy.config.listener.v3.Listener;
import io.envoyproxy.envoy.config.route.v3.Route;
import io.envoyproxy.envoy.config.route.v3.RouteAction;
import io.envoyproxy.envoy.config.route.v3.RouteConfiguration;
import io.envoyproxy.envoy.config.route.v3.RouteMatch;
import io.envoyproxy.envoy.config.route.v3.VirtualHost;
import io.envoyproxy.envoy.extensions.filters.http.router.v3.Router;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpFilter;
import io.envoyproxy.envoy.type.v3.FractionalPercent;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeMap;

/**
 * The xDS resources for one name, as pure functions. Listeners, routes and clusters depend only on
 * the name asked for; a {@link ClusterLoadAssignment} is the one resource that follows the table.
 *
 * <p>What gRPC clients require, learnt the hard way (see docs/ARCHITECTURE.md): the listener's
 * HttpConnectionManager must end with the router filter, the cluster's {@code lb_policy} must be
 * one they know, and no locality may have weight 0.
 */
public final class XdsResources {

  static final String ROUTER_FILTER = "envoy.filters.http.router";

  private static final Any ROUTER = Any.pack(Router.getDefaultInstance());

  private static final ConfigSource ADS =
      ConfigSource.newBuilder()
          .setAds(AggregatedConfigSource.getDefaultInstance())
          .setResourceApiVersion(ApiVersion.V3)
          .build();

  private XdsResources() {}

  /**
   * The API listener {@code name}: an HttpConnectionManager whose inline route sends every call to
   * the name's cluster. A name that points at no Service gets a route table with no route, so its
   * calls fail at once with UNAVAILABLE instead of waiting out the client's resource timer.
   */
  public static Listener listener(String name) {
    HttpConnectionManager manager =
        HttpConnectionManager.newBuilder()
            .setStatPrefix("routesync")
            .setRouteConfig(route(name))
            .addHttpFilters(HttpFilter.newBuilder().setName(ROUTER_FILTER).setTypedConfig(ROUTER))
            .build();
    return Listener.newBuilder()
        .setName(name)
        .setApiListener(ApiListener.newBuilder().setApiListener(Any.pack(manager)))
        .build();
  }

  /** The route configuration {@code name} (for clients that ask RDS by a listener's name). */
  public static RouteConfiguration route(String name) {
    VirtualHost.Builder host = VirtualHost.newBuilder().setName(name).addDomains("*");
    XdsNames.parse(name)
        .ifPresent(
            target ->
                host.addRoutes(
                    Route.newBuilder()
                        .setMatch(RouteMatch.newBuilder().setPrefix(""))
                        .setRoute(RouteAction.newBuilder().setCluster(target.clusterName()))));
    return RouteConfiguration.newBuilder().setName(name).addVirtualHosts(host).build();
  }

  /**
   * The cluster {@code name} as {@code current} says: for a port of an ExternalName Service, a
   * {@code LOGICAL_DNS} cluster ({@link #externalCluster}); for every other name, the EDS cluster
   * ({@link #cluster(String)}).
   */
  public static Cluster cluster(String name, RoutingTable current) {
    Optional<XdsTarget> target = XdsNames.parse(name);
    Optional<ServiceEndpoints> service =
        target.isEmpty() ? Optional.empty() : current.get(target.get().service());
    return cluster(name, target, service);
  }

  /** The cluster {@code name} for {@code target}'s Service as it stands ({@code service}). */
  public static Cluster cluster(
      String name, Optional<XdsTarget> target, Optional<ServiceEndpoints> service) {
    if (target.isPresent() && service.isPresent() && service.get().traffic().isExternalName()) {
      OptionalInt port = ExternalPorts.of(service.get(), target.get().port());
      if (port.isPresent()) {
        return externalCluster(name, service.get().traffic().externalName(), port.getAsInt());
      }
    }
    return cluster(name);
  }

  /**
   * A {@code LOGICAL_DNS} cluster to {@code host}:{@code port}, for an ExternalName Service: the
   * client resolves the external name itself, as a pod's resolver follows the Service's CNAME. Its
   * {@code load_assignment} holds exactly one locality with one endpoint, a socket address with a
   * {@code port_value} and no resolver name: what Envoy requires of a logical DNS cluster, and what
   * grpc-java ({@code XdsClusterResource}) and grpc-js-xds ({@code ClusterResourceType}) accept as
   * a top-level cluster (gRFC A37). {@code V4_PREFERRED}: an A record when there is one, else AAAA
   * (Envoy's {@code AUTO} prefers AAAA, which most cluster networks lack); gRPC clients ignore the
   * field and resolve both. {@code ROUND_ROBIN}: the one policy all three accept.
   */
  public static Cluster externalCluster(String name, String host, int port) {
    LbEndpoint endpoint =
        LbEndpoint.newBuilder()
            .setEndpoint(
                io.envoyproxy.envoy.config.endpoint.v3.Endpoint.newBuilder()
                    .setAddress(
                        Address.newBuilder()
                            .setSocketAddress(
                                SocketAddress.newBuilder().setAddress(host).setPortValue(port))))
            .build();
    return Cluster.newBuilder()
        .setName(name)
        .setType(Cluster.DiscoveryType.LOGICAL_DNS)
        .setDnsLookupFamily(Cluster.DnsLookupFamily.V4_PREFERRED)
        .setLoadAssignment(
            ClusterLoadAssignment.newBuilder()
                .setClusterName(name)
                .addEndpoints(LocalityLbEndpoints.newBuilder().addLbEndpoints(endpoint)))
        .setLbPolicy(Cluster.LbPolicy.ROUND_ROBIN)
        .setConnectTimeout(com.google.protobuf.Duration.newBuilder().setSeconds(5))
        .build();
  }

  /**
   * What the cluster of {@code name} is, as a number a stream keeps per name to tell when it must
   * send the cluster again: 0 for the EDS cluster, else a hash of the external host and port (never
   * 0).
   */
  static long clusterShape(String name, RoutingTable current) {
    Optional<XdsTarget> target = XdsNames.parse(name);
    Optional<ServiceEndpoints> service =
        target.isEmpty() ? Optional.empty() : current.get(target.get().service());
    if (target.isEmpty() || service.isEmpty() || !service.get().traffic().isExternalName()) {
      return 0;
    }
    OptionalInt port = ExternalPorts.of(service.get(), target.get().port());
    if (port.isEmpty()) {
      return 0;
    }
    long hash = 31L * service.get().traffic().externalName().hashCode() + port.getAsInt();
    return hash == 0 ? 1 : hash;
  }

  /** The EDS cluster {@code name}: its endpoints come by EDS, over the same ADS stream. */
  public static Cluster cluster(String name) {
    return Cluster.newBuilder()
        .setName(name)
        .setType(Cluster.DiscoveryType.EDS)
        .setEdsClusterConfig(Cluster.EdsClusterConfig.newBuilder().setEdsConfig(ADS))
        .setLbPolicy(Cluster.LbPolicy.ROUND_ROBIN)
        .setConnectTimeout(com.google.protobuf.Duration.newBuilder().setSeconds(5))
        .build();
  }

  /** The drop category of a name whose Service does not exist or lacks the port. */
  public static final String NO_SUCH_SERVICE = "no_such_service";

  /**
   * The drop category of a Service with internalTrafficPolicy Local and no endpoint on this node:
   * its calls fail here, never reach another node (kube-proxy's semantics).
   */
  public static final String NO_NODE_LOCAL_ENDPOINT = "no_node_local_endpoint";

  /** The drop category of a Service port with no ready endpoint. */
  public static final String NO_READY_ENDPOINTS = "no_ready_endpoints";

  /**
   * Where an assignment that routes nothing points: the discard port on the client's own loopback.
   * No call is ever sent there (every call is dropped); a client may still connect, and is refused.
   */
  static final String PLACEHOLDER_IP = "127.0.0.1";

  static final int PLACEHOLDER_PORT = 9;

  /**
   * The endpoints of cluster {@code name}: one locality per zone (the endpoints with no zone share
   * one with an empty zone), weighted by its endpoint count.
   *
   * <p>Topology ({@link TopologyDecision}, made once for this node when the Service changed): the
   * chosen endpoints are priority 0; with hints followed, the Service's other endpoints follow as
   * lower priorities ({@link #tier}); with internalTrafficPolicy Local only this node's chosen ones
   * are sent (its ready ones, else its serving terminating ones), and none here drops every call as
   * {@value #NO_NODE_LOCAL_ENDPOINT}.
   *
   * <p>Health says where calls go, as kube-proxy routes them: while the port has a ready endpoint
   * among those sent, the ready ones are HEALTHY and serving terminating ones DRAINING (Envoy and
   * gRPC send them no new calls); once none sent is ready, the serving terminating ones are the
   * fallback (KEP-1669; for Local, this node's own fallback, whatever other nodes have) and go
   * HEALTHY, because both Envoy and gRPC route only to HEALTHY (or UNKNOWN) endpoints and would
   * otherwise fail every call while those pods still answer. Endpoints neither ready nor serving
   * are left out.
   *
   * <p>When there is nothing to route to (no such Service, no such port on it, no ready endpoint on
   * that port) the assignment drops every call, with a category that says why: clients fail calls
   * at once with UNAVAILABLE ("Dropped: no_such_service"). It cannot simply be empty: grpc-java
   * 1.85 takes an assignment without a usable endpoint as an error and keeps calling the endpoints
   * it had, for good, and it only honours a drop policy beside a healthy endpoint, so the
   * assignment carries one placeholder that no call reaches.
   */
  public static ClusterLoadAssignment assignment(
      String name, Optional<XdsTarget> target, Optional<ServiceEndpoints> service) {
    ClusterLoadAssignment.Builder assignment =
        ClusterLoadAssignment.newBuilder().setClusterName(name);
    if (target.isEmpty() || service.isEmpty()) {
      return dropsEverything(assignment, NO_SUCH_SERVICE);
    }
    Optional<PortSelection> selection = PortSelection.of(service.get(), target.get().port());
    if (selection.isEmpty()) {
      return dropsEverything(assignment, NO_SUCH_SERVICE);
    }
    TopologyDecision decision = service.get().topology();
    if (decision.mode() == TopologyDecision.Mode.NO_LOCAL_ENDPOINT) {
      return dropsEverything(assignment, NO_NODE_LOCAL_ENDPOINT);
    }
    // Whether an endpoint sent is ready: counted over the sent ones only, so that with
    // internalTrafficPolicy Local this node's serving terminating fallback goes HEALTHY even while
    // a remote endpoint (never sent) is ready.
    boolean anyReady = false;
    for (Endpoint endpoint : service.get().endpoints()) {
      if (endpoint.ready()
          && tier(decision, endpoint) >= 0
          && selection.get().on(endpoint).isPresent()) {
        anyReady = true;
        break;
      }
    }
    // Per priority (its tier, see tier()), per zone: the endpoints sent.
    List<Map<String, List<LbEndpoint>>> tiers = new ArrayList<>(TIERS);
    for (int i = 0; i < TIERS; i++) {
      tiers.add(new TreeMap<>());
    }
    for (Endpoint endpoint : service.get().endpoints()) {
      int tier = tier(decision, endpoint);
      Optional<HealthStatus> health = tier < 0 ? Optional.empty() : health(endpoint, anyReady);
      Optional<Port> port = health.isEmpty() ? Optional.empty() : selection.get().on(endpoint);
      if (port.isEmpty()) {
        continue;
      }
      String zone = endpoint.zone() == null ? "" : endpoint.zone();
      tiers
          .get(tier)
          .computeIfAbsent(zone, z -> new ArrayList<>())
          .add(lbEndpoint(endpoint, port.get(), health.get()));
    }
    // Priorities are numbered from 0 without gaps (Envoy and gRPC require it): empty tiers go.
    int priority = 0;
    for (Map<String, List<LbEndpoint>> byZone : tiers) {
      if (byZone.isEmpty()) {
        continue;
      }
      for (Map.Entry<String, List<LbEndpoint>> zone : byZone.entrySet()) {
        assignment.addEndpoints(
            LocalityLbEndpoints.newBuilder()
                .setLocality(Locality.newBuilder().setZone(zone.getKey()))
                .setLoadBalancingWeight(UInt32Value.of(zone.getValue().size()))
                .setPriority(priority)
                .addAllLbEndpoints(zone.getValue()));
      }
      priority++;
    }
    if (priority == 0) {
      return dropsEverything(assignment, NO_READY_ENDPOINTS);
    }
    return assignment.build();
  }

  /** The tiers an endpoint can fall in: chosen, then same node, same zone, the rest. */
  private static final int TIERS = 4;

  /**
   * The priority tier of {@code endpoint} under {@code decision}, or -1 when it is never sent.
   *
   * <ul>
   *   <li>0: the decision's chosen set (kube-proxy's endpoints for this node);
   *   <li>with hints followed (same-node, same-zone), the Service's other endpoints behind it, so
   *       that a client fails over when the chosen ones stop answering, not only when the
   *       controller rewrites the hints: 1 those on this node, 2 those in this zone, 3 the rest;
   *   <li>internalTrafficPolicy Local: the chosen ones only (this node's ready ones, else its
   *       serving terminating ones), never a remote one (-1 for the others).
   * </ul>
   */
  static int tier(TopologyDecision decision, Endpoint endpoint) {
    if (decision.selects(endpoint)) {
      return 0;
    }
    return switch (decision.mode()) {
      case NONE -> 0;
      case LOCAL, NO_LOCAL_ENDPOINT -> -1;
      case SAME_NODE, SAME_ZONE -> {
        if (decision.node() != null && decision.node().equals(endpoint.node())) {
          yield 1;
        }
        if (decision.zone() != null && decision.zone().equals(endpoint.zone())) {
          yield 2;
        }
        yield 3;
      }
    };
  }

  private static ClusterLoadAssignment dropsEverything(
      ClusterLoadAssignment.Builder assignment, String category) {
    LbEndpoint placeholder =
        LbEndpoint.newBuilder()
            .setEndpoint(
                io.envoyproxy.envoy.config.endpoint.v3.Endpoint.newBuilder()
                    .setAddress(
                        Address.newBuilder()
                            .setSocketAddress(
                                SocketAddress.newBuilder()
                                    .setAddress(PLACEHOLDER_IP)
                                    .setPortValue(PLACEHOLDER_PORT))))
            .setHealthStatus(HealthStatus.HEALTHY)
            .build();
    return assignment
        .addEndpoints(
            LocalityLbEndpoints.newBuilder()
                .setLocality(Locality.getDefaultInstance())
                .setLoadBalancingWeight(UInt32Value.of(1))
                .addLbEndpoints(placeholder))
        .setPolicy(
            ClusterLoadAssignment.Policy.newBuilder()
                .addDropOverloads(
                    ClusterLoadAssignment.Policy.DropOverload.newBuilder()
                        .setCategory(category)
                        .setDropPercentage(
                            FractionalPercent.newBuilder()
                                .setNumerator(100)
                                .setDenominator(FractionalPercent.DenominatorType.HUNDRED))))
        .build();
  }

  /**
   * The bytes of an assignment that drops every call as {@code category}, without its cluster name:
   * what follows the name's field in every such assignment.
   */
  static com.google.protobuf.ByteString dropsEverythingTail(String category) {
    return dropsEverything(ClusterLoadAssignment.newBuilder(), category).toByteString();
  }

  /** Whether {@code assignment} routes nothing (it drops every call). */
  public static boolean dropsEverything(ClusterLoadAssignment assignment) {
    return assignment.getPolicy().getDropOverloadsCount() > 0
        && assignment.getPolicy().getDropOverloads(0).getDropPercentage().getNumerator() == 100;
  }

  /**
   * One endpoint on one port: its primary address as {@code endpoint.address}, a dual-stack pod's
   * other addresses (in the Service's family order, on the same port) as {@code
   * endpoint.additional_addresses} (gRFC A61; Envoy's happy eyeballs).
   */
  private static LbEndpoint lbEndpoint(Endpoint endpoint, Port port, HealthStatus health) {
    io.envoyproxy.envoy.config.endpoint.v3.Endpoint.Builder address =
        io.envoyproxy.envoy.config.endpoint.v3.Endpoint.newBuilder()
            .setAddress(socketAddress(endpoint.ip(), port));
    for (String additional : endpoint.additionalAddresses()) {
      address.addAdditionalAddresses(
          io.envoyproxy.envoy.config.endpoint.v3.Endpoint.AdditionalAddress.newBuilder()
              .setAddress(socketAddress(additional, port)));
    }
    return LbEndpoint.newBuilder().setEndpoint(address).setHealthStatus(health).build();
  }

  private static Address socketAddress(String ip, Port port) {
    return Address.newBuilder()
        .setSocketAddress(SocketAddress.newBuilder().setAddress(ip).setPortValue(port.port()))
        .build();
  }

  /**
   * How {@code endpoint} is sent, given whether the port has a ready endpoint: nothing for an
   * endpoint no call may reach (neither ready nor serving).
   */
  static Optional<HealthStatus> health(Endpoint endpoint, boolean anyReady) {
    if (endpoint.ready()) {
      return Optional.of(HealthStatus.HEALTHY);
    }
    if (endpoint.serving() && endpoint.terminating()) {
      return Optional.of(anyReady ? HealthStatus.DRAINING : HealthStatus.HEALTHY);
    }
    return Optional.empty();
  }

  /**
   * The clusters a wildcard CDS subscriber (Envoy) gets for {@code service}: one per declared TCP
   * port, by number. None while the Service's declared ports are not known (its slices came before
   * the Service itself): a name made from the endpoints' port names then would be replaced by the
   * number's when the Service came, and a client would see one cluster removed and another added.
   * Meanwhile the Service is simply not listed yet; a client that names it explicitly is served as
   * ever ({@link PortSelection} reads the endpoints' ports).
   */
  public static List<String> clusterNames(ServiceEndpoints service) {
    List<String> names = new ArrayList<>();
    for (Port declared : service.servicePorts()) {
      if ("TCP".equals(declared.protocol())) {
        names.add(new XdsTarget(service.key(), String.valueOf(declared.port())).clusterName());
      }
    }
    return names;
  }
}
