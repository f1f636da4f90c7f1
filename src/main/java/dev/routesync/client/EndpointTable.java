package dev.routesync.client;

import dev.routesync.api.v1.Endpoint;
import dev.routesync.api.v1.Port;
import dev.routesync.api.v1.ServiceEndpoints;
import dev.routesync.api.v1.Topology;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/** {@code routesync get endpoints NS/NAME}: one row per endpoint of one Service. */
public final class EndpointTable {

  private EndpointTable() {}

  /** The table, in address order, or an empty string when the Service has no endpoint. */
  public static String render(ServiceEndpoints service) {
    TableFormat table =
        new TableFormat("IP", "PORTS", "NODE", "ZONE", "POD", "READY", "SERVING", "TERMINATING");
    for (Endpoint endpoint : AddressOrder.sorted(service.getEndpointsList())) {
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

  /**
   * {@code -o wide}: the table with every address of each endpoint ({@code ADDRESSES}: the primary
   * first, then a dual-stack pod's other address), its hints and whether this node's clients route
   * to it ({@code SELECTED}, the topology decision's chosen set); in address order.
   */
  public static String renderWide(ServiceEndpoints service) {
    TableFormat table =
        new TableFormat(
            "IP",
            "ADDRESSES",
            "PORTS",
            "NODE",
            "ZONE",
            "POD",
            "READY",
            "SERVING",
            "TERMINATING",
            "HINTS",
            "SELECTED");
    for (Endpoint endpoint : AddressOrder.sorted(service.getEndpointsList())) {
      table.row(
          endpoint.getIp(),
          addresses(endpoint),
          ports(endpoint),
          endpoint.getNode(),
          endpoint.getZone(),
          endpoint.getPod(),
          Boolean.toString(endpoint.getReady()),
          Boolean.toString(endpoint.getServing()),
          Boolean.toString(endpoint.getTerminating()),
          hints(endpoint),
          Boolean.toString(endpoint.getSelected()));
    }
    return table.isEmpty() ? "" : table.render();
  }

  /**
   * The topology decision in one line: {@code Topology: same-zone (node node-1, zone zone-a;
   * trafficDistribution PreferClose, internalTrafficPolicy Cluster)}, with the reason when there is
   * one.
   */
  public static String decision(ServiceEndpoints service) {
    Topology topology = service.getTopology();
    StringBuilder line =
        new StringBuilder("Topology: ")
            .append(topology.getMode().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'));
    if (!topology.getReason().isEmpty()) {
      line.append(": ").append(topology.getReason());
    }
    line.append(" (node ")
        .append(orUnknown(topology.getNode()))
        .append(", zone ")
        .append(orUnknown(topology.getZone()))
        .append("; trafficDistribution ")
        .append(
            topology.getTrafficDistribution().isEmpty()
                ? "unset"
                : topology.getTrafficDistribution())
        .append(", internalTrafficPolicy ")
        .append(
            topology.getInternalTrafficPolicy().isEmpty()
                ? "Cluster"
                : topology.getInternalTrafficPolicy())
        .append(')');
    return line.toString();
  }

  /**
   * Every address, comma-separated, in order: {@code fd00::1,10.0.0.1}; the ip alone when the agent
   * sent no list (an older agent).
   */
  static String addresses(Endpoint endpoint) {
    return endpoint.getAddressesCount() == 0
        ? endpoint.getIp()
        : String.join(",", endpoint.getAddressesList());
  }

  /** {@code zones=a,b;nodes=n1}, or {@code -} without hints. */
  static String hints(Endpoint endpoint) {
    if (!endpoint.hasHints()) {
      return "-";
    }
    List<String> parts = new ArrayList<>();
    if (endpoint.getHints().getForZonesCount() > 0) {
      parts.add("zones=" + String.join(",", endpoint.getHints().getForZonesList()));
    }
    if (endpoint.getHints().getForNodesCount() > 0) {
      parts.add("nodes=" + String.join(",", endpoint.getHints().getForNodesList()));
    }
    return parts.isEmpty() ? "-" : String.join(";", parts);
  }

  private static String orUnknown(String text) {
    return text.isEmpty() ? "unknown" : text;
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
