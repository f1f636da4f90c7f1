package dev.routesync.client;

import dev.routesync.api.v1.Endpoint;
import dev.routesync.api.v1.ListResponse;
import dev.routesync.api.v1.PortCount;
import dev.routesync.api.v1.ServiceEndpoints;
import java.util.StringJoiner;

/**
 * {@code routesync get services}: one row per Service with its endpoint count, how many are ready,
 * the ready counts per port, and the table version at which it last changed.
 *
 * <p>READY is the ready count of the Service's worst port (the endpoints that can take its traffic
 * on every port, when one port is missing everywhere), not the ready endpoints listed: during a
 * renamed named {@code targetPort} every pod is listed ready without ports, and a READY of 8 would
 * call the Service healthy while no pod can take a request. A Service without ports is counted by
 * its ready endpoints, as before.
 */
public final class ServiceTable {

  private ServiceTable() {}

  /** The table, or an empty string when the list holds no Service. */
  public static String render(ListResponse list) {
    TableFormat table =
        new TableFormat("NAMESPACE", "NAME", "ENDPOINTS", "READY", "PORTS", "VERSION");
    for (ServiceEndpoints service : list.getServicesList()) {
      table.row(
          service.getNamespace(),
          service.getName(),
          Integer.toString(service.getEndpointsCount()),
          Long.toString(ready(service)),
          ports(service),
          Long.toUnsignedString(service.getVersion()));
    }
    return table.isEmpty() ? "" : table.render();
  }

  /** The worst port's ready count; the ready endpoints when the Service has no ports. */
  static long ready(ServiceEndpoints service) {
    if (service.getPortCountsCount() == 0) {
      return service.getEndpointsList().stream().filter(Endpoint::getReady).count();
    }
    long worst = Long.MAX_VALUE;
    for (PortCount count : service.getPortCountsList()) {
      worst = Math.min(worst, Integer.toUnsignedLong(count.getReady()));
    }
    return worst;
  }

  /**
   * {@code http=0/8,metrics=8/8}: per port, the ready endpoints carrying it over the ready
   * endpoints listed; empty (printed {@code <none>}) for a Service without ports.
   */
  static String ports(ServiceEndpoints service) {
    StringJoiner joined = new StringJoiner(",");
    for (PortCount count : service.getPortCountsList()) {
      joined.add(
          label(count)
              + "="
              + Integer.toUnsignedString(count.getReady())
              + "/"
              + Integer.toUnsignedString(count.getListed()));
    }
    return joined.toString();
  }

  /** The port's name; an unnamed port by its number, as kubectl shows it. */
  private static String label(PortCount count) {
    if (!count.getName().isEmpty()) {
      return count.getName();
    }
    return count.getPort() == 0 ? "unnamed" : Integer.toUnsignedString(count.getPort());
  }
}
