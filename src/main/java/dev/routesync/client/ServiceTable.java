package dev.routesync.client;

import dev.routesync.api.v1.Endpoint;
import dev.routesync.api.v1.ListResponse;
import dev.routesync.api.v1.ServiceEndpoints;

/**
 * {@code routesync get services}: one row per Service with its endpoint count, how many of those
 * are ready, and the table version at which it last changed.
 */
public final class ServiceTable {

  private ServiceTable() {}

  /** The table, or an empty string when the list holds no Service. */
  public static String render(ListResponse list) {
    TableFormat table = new TableFormat("NAMESPACE", "NAME", "ENDPOINTS", "READY", "VERSION");
    for (ServiceEndpoints service : list.getServicesList()) {
      long ready = service.getEndpointsList().stream().filter(Endpoint::getReady).count();
      table.row(
          service.getNamespace(),
          service.getName(),
          Integer.toString(service.getEndpointsCount()),
          Long.toString(ready),
          Long.toUnsignedString(service.getVersion()));
    }
    return table.isEmpty() ? "" : table.render();
  }
}
