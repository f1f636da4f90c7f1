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
 */
public record ServiceState(
    List<Endpoint> endpoints, List<Port> servicePorts, ServiceTraffic traffic) {

  public ServiceState {
    endpoints = List.copyOf(endpoints);
    servicePorts = List.copyOf(servicePorts);
    traffic = traffic == null ? ServiceTraffic.DEFAULT : traffic;
  }

  /** A state with the default traffic settings. */
  public ServiceState(List<Endpoint> endpoints, List<Port> servicePorts) {
    this(endpoints, servicePorts, ServiceTraffic.DEFAULT);
  }

  /** Endpoints of a Service whose declared ports are not known. */
  public static ServiceState of(List<Endpoint> endpoints) {
    return new ServiceState(endpoints, List.of());
  }
}
