package dev.routesync.xds;

import dev.routesync.table.ServiceKey;
import java.util.Objects;

/**
 * What one xDS name points at: a Service and one of its ports.
 *
 * @param service the Service
 * @param port the port as the client named it: a Service port number ({@code "8080"}), a port name
 *     ({@code "grpc"}), or {@code ""} for the Service's only port
 */
public record XdsTarget(ServiceKey service, String port) {

  /** The cluster domain of canonical names; clients may name others, the agent answers this. */
  public static final String CLUSTER_DOMAIN = "cluster.local";

  public XdsTarget {
    Objects.requireNonNull(service, "service");
    Objects.requireNonNull(port, "port");
  }

  /**
   * The canonical cluster (and EDS) name: {@code <svc>.<ns>.svc.cluster.local[:<port>]}, the port
   * as the client gave it, so every spelling of one listener name shares one cluster.
   */
  public String clusterName() {
    String host = service.name() + "." + service.namespace() + ".svc." + CLUSTER_DOMAIN;
    return port.isEmpty() ? host : host + ":" + port;
  }

  /** The port is a Service port number rather than a name. */
  public boolean portIsNumber() {
    return !port.isEmpty() && Character.isDigit(port.charAt(0));
  }
}
