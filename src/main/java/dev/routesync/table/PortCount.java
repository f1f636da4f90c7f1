package dev.routesync.table;

import java.util.Objects;

/**
 * How many of a Service's ready endpoints serve one of its ports.
 *
 * @param name the Service port name ({@code ""} for the single unnamed port)
 * @param port the Service port number, or 0 when the Service's ports are not known and the name
 *     comes from the endpoints
 * @param protocol TCP, UDP or SCTP
 * @param ready ready endpoints that carry a port of this name: the ones that can take its traffic
 * @param listed every ready endpoint listed for the Service, with or without this port
 */
public record PortCount(String name, int port, String protocol, int ready, int listed) {

  public PortCount {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(protocol, "protocol");
  }
}
