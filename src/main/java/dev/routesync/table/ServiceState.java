package dev.routesync.table;

import java.util.List;

/**
 * What the watch caches say of one Service at one moment: its routable endpoints and the ports the
 * Service declares. The table publishes a new version of the Service when either changes.
 *
 * @param endpoints sorted by IP, possibly empty
 * @param servicePorts the Service's declared ports ({@code port} is the Service port number),
 *     sorted by name; empty when the Service is not known (no Services watch event for it yet) or
 *     declares none
 * @param traffic the Service's traffic settings; {@link ServiceTraffic#DEFAULT} when not known
 * @param topology this node's decision for the Service ({@link TopologyRule}), made once here and
 *     shared by every client
 */
public record ServiceState(
    List<Endpoint> endpoints,
    List<Port> servicePorts,
    ServiceTraffic traffic,
    TopologyDecision topology) {

  public ServiceState {
    endpoints = List.copyOf(endpoints);
    servicePorts = List.copyOf(servicePorts);
    traffic = traffic == null ? ServiceTraffic.DEFAULT : traffic;
    topology = topology == null ? TopologyDecision.NONE : topology;
  }

  /** A state with the default traffic settings. */
  public ServiceState(List<Endpoint> endpoints, List<Port> servicePorts) {
    this(endpoints, servicePorts, ServiceTraffic.DEFAULT, TopologyDecision.NONE);
  }

  /** A state with this node's topology decision made from the endpoints and settings. */
  public static ServiceState decided(
      List<Endpoint> endpoints,
      List<Port> servicePorts,
      ServiceTraffic traffic,
      NodeLocality here) {
    return new ServiceState(
        endpoints, servicePorts, traffic, TopologyRule.decide(endpoints, traffic, here));
  }

  /** Endpoints of a Service whose declared ports are not known. */
  public static ServiceState of(List<Endpoint> endpoints) {
    return new ServiceState(endpoints, List.of());
  }
}
