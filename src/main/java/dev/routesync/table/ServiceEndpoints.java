package dev.routesync.table;

import java.util.List;
import java.util.Objects;

/**
 * The published state of one Service.
 *
 * @param key the Service
 * @param version the table version at which this entry last changed
 * @param endpoints sorted by IP, possibly empty (the Service exists but nothing is ready)
 * @param servicePorts the ports the Service declares (name, Service port number, protocol), sorted
 *     by name; empty when the Service is not known from the Services watch or declares none
 * @param traffic the Service's trafficDistribution and internalTrafficPolicy; {@link
 *     ServiceTraffic#DEFAULT} when not known
 * @param topology this node's routing decision for the Service, made when the entry was
 */
public record ServiceEndpoints(
    ServiceKey key,
    long version,
    List<Endpoint> endpoints,
    List<Port> servicePorts,
    ServiceTraffic traffic,
    TopologyDecision topology) {

  public ServiceEndpoints {
    Objects.requireNonNull(key, "key");
    endpoints = List.copyOf(endpoints);
    servicePorts = List.copyOf(servicePorts);
    traffic = traffic == null ? ServiceTraffic.DEFAULT : traffic;
    topology = topology == null ? TopologyDecision.NONE : topology;
  }

  /** An entry with the default traffic settings. */
  public ServiceEndpoints(
      ServiceKey key, long version, List<Endpoint> endpoints, List<Port> servicePorts) {
    this(key, version, endpoints, servicePorts, ServiceTraffic.DEFAULT, TopologyDecision.NONE);
  }

  /** An entry whose topology decision is not made yet (read from the state file). */
  public ServiceEndpoints(
      ServiceKey key,
      long version,
      List<Endpoint> endpoints,
      List<Port> servicePorts,
      ServiceTraffic traffic) {
    this(key, version, endpoints, servicePorts, traffic, TopologyDecision.NONE);
  }

  /** This entry with this node's decision made for {@code here}, at the same version. */
  public ServiceEndpoints decidedFor(NodeLocality here) {
    TopologyDecision decided = TopologyRule.decide(endpoints, traffic, here);
    return decided.equals(topology)
        ? this
        : new ServiceEndpoints(key, version, endpoints, servicePorts, traffic, decided);
  }

  /** An entry whose Service's declared ports are not known. */
  public ServiceEndpoints(ServiceKey key, long version, List<Endpoint> endpoints) {
    this(key, version, endpoints, List.of());
  }

  /** Ready counts per Service port; see {@link PortCounts#of}. */
  public List<PortCount> portCounts() {
    return PortCounts.of(endpoints, servicePorts);
  }

  /** Whether this entry already holds {@code state}: publishing it again would change nothing. */
  boolean holds(ServiceState state) {
    return endpoints.equals(state.endpoints())
        && servicePorts.equals(state.servicePorts())
        && traffic.equals(state.traffic())
        && topology.equals(state.topology());
  }
}
