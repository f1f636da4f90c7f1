package dev.routesync.xds;

import com.google.protobuf.Any;
import com.google.protobuf.UInt32Value;
import dev.routesync.table.Endpoint;
import dev.routesync.table.Port;
import dev.routesync.table.RoutingTable;
import dev.routesync.table.ServiceEndpoints;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
   * Whether cluster {@code target} exists in {@code table}: its Service is there and has the port
   * the name selects (possibly with no ready endpoint on it).
   */
  public static boolean clusterExists(Optional<XdsTarget> target, RoutingTable table) {
    if (target.isEmpty()) {
      return false;
    }
    Optional<ServiceEndpoints> service = table.get(target.get().service());
    return service.isPresent() && PortSelection.of(service.get(), target.get().port()).isPresent();
  }

  /** The cluster {@code name}: its endpoints come by EDS, over the same ADS stream. */
  public static Cluster cluster(String name) {
    return Cluster.newBuilder()
        .setName(name)
        .setType(Cluster.DiscoveryType.EDS)
        .setEdsClusterConfig(Cluster.EdsClusterConfig.newBuilder().setEdsConfig(ADS))
        .setLbPolicy(Cluster.LbPolicy.ROUND_ROBIN)
        .setConnectTimeout(com.google.protobuf.Duration.newBuilder().setSeconds(5))
        .build();
  }

  /**
   * The endpoints of cluster {@code name}: one locality per zone (the endpoints with no zone share
   * one with an empty zone), weighted by its endpoint count; ready endpoints HEALTHY, serving
   * terminating ones DRAINING. Empty when {@code service} is absent or the name's port selects
   * nothing on it: clients then fail calls fast with UNAVAILABLE.
   */
  public static ClusterLoadAssignment assignment(
      String name, Optional<XdsTarget> target, Optional<ServiceEndpoints> service) {
    ClusterLoadAssignment.Builder assignment =
        ClusterLoadAssignment.newBuilder().setClusterName(name);
    if (target.isEmpty() || service.isEmpty()) {
      return assignment.build();
    }
    Optional<PortSelection> selection = PortSelection.of(service.get(), target.get().port());
    if (selection.isEmpty()) {
      return assignment.build();
    }
    Map<String, List<LbEndpoint>> byZone = new TreeMap<>();
    for (Endpoint endpoint : service.get().endpoints()) {
      Optional<Port> port = selection.get().on(endpoint);
      if (port.isEmpty()) {
        continue;
      }
      String zone = endpoint.zone() == null ? "" : endpoint.zone();
      byZone.computeIfAbsent(zone, z -> new ArrayList<>()).add(lbEndpoint(endpoint, port.get()));
    }
    for (Map.Entry<String, List<LbEndpoint>> zone : byZone.entrySet()) {
      assignment.addEndpoints(
          LocalityLbEndpoints.newBuilder()
              .setLocality(Locality.newBuilder().setZone(zone.getKey()))
              .setLoadBalancingWeight(UInt32Value.of(zone.getValue().size()))
              .addAllLbEndpoints(zone.getValue()));
    }
    return assignment.build();
  }

  private static LbEndpoint lbEndpoint(Endpoint endpoint, Port port) {
    return LbEndpoint.newBuilder()
        .setEndpoint(
            io.envoyproxy.envoy.config.endpoint.v3.Endpoint.newBuilder()
                .setAddress(
                    Address.newBuilder()
                        .setSocketAddress(
                            SocketAddress.newBuilder()
                                .setAddress(endpoint.ip())
                                .setPortValue(port.port()))))
        .setHealthStatus(health(endpoint))
        .build();
  }

  static HealthStatus health(Endpoint endpoint) {
    if (endpoint.ready()) {
      return HealthStatus.HEALTHY;
    }
    return endpoint.serving() && endpoint.terminating()
        ? HealthStatus.DRAINING
        : HealthStatus.UNHEALTHY;
  }

  /**
   * The clusters a wildcard CDS subscriber (Envoy) gets for {@code service}: one per declared TCP
   * port, by number; when the Service's ports are not known, one per endpoint port name.
   */
  public static List<String> clusterNames(ServiceEndpoints service) {
    List<String> names = new ArrayList<>();
    if (!service.servicePorts().isEmpty()) {
      for (Port declared : service.servicePorts()) {
        if ("TCP".equals(declared.protocol())) {
          names.add(new XdsTarget(service.key(), String.valueOf(declared.port())).clusterName());
        }
      }
      return names;
    }
    java.util.TreeSet<String> portNames = new java.util.TreeSet<>();
    for (Endpoint endpoint : service.endpoints()) {
      for (Port carried : endpoint.ports()) {
        if ("TCP".equals(carried.protocol())) {
          portNames.add(carried.name());
        }
      }
    }
    for (String portName : portNames) {
      names.add(new XdsTarget(service.key(), portName).clusterName());
    }
    return names;
  }
}
