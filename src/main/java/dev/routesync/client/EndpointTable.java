package dev.routesync.client;

import dev.routesync.api.v1.Endpoint;
import dev.routesync.api.v1.Port;
import dev.routesync.api.v1.ServiceEndpoints;
import java.util.stream.Collectors;

/** {@code routesync get endpoints NS/NAME}: one row per endpoint of one Service. */
public final class EndpointTable {

  private EndpointTable() {}

  /** The table, or an empty string when the Service has no endpoint. */
  public static String render(ServiceEndpoints service) {
    TableFormat table =
        new TableFormat("IP", "PORTS", "NODE", "ZONE", "POD", "READY", "SERVING", "TERMINATING");
    for (Endpoint endpoint : service.getEndpointsList()) {
      table.row(
          endpoint.getIp(),
          ports(endpoint),
          endpoint.getNode(),
          endpoint.getZone(),
          endpoint.getPod(),
          Boolean.toString(endpoint.getReady()),
          Boolean.toString(endpoint.getServing()),
          Boolean.toString(endpoint.getTerminating()));
    }
    return table.isEmpty() ? "" : table.render();
  }

  /** {@code http:8080/TCP,admin:9090/TCP}; an unnamed port is {@code 8080/TCP}. */
  static String ports(Endpoint endpoint) {
    return endpoint.getPortsList().stream()
        .map(EndpointTable::port)
        .collect(Collectors.joining(","));
  }

  private static String port(Port port) {
    StringBuilder text = new StringBuilder();
    if (!port.getName().isEmpty()) {
      text.append(port.getName()).append(':');
    }
    text.append(Integer.toUnsignedString(port.getPort()));
    if (!port.getProtocol().isEmpty()) {
      text.append('/').append(port.getProtocol());
    }
    return text.toString();
  }
}
