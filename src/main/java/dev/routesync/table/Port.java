package dev.routesync.table;

import java.util.Objects;

/**
 * A port as the EndpointSlice controller resolved it for one endpoint. A named {@code targetPort}
 * can resolve to different numbers on different pods, so ports belong to endpoints, not services.
 * The same record holds a Service's declared ports ({@link ServiceEndpoints#servicePorts}), where
 * {@code port} is the Service port number.
 *
 * @param name the Service port name ({@code ""} for the single unnamed port)
 * @param port the number, 1 to 65535
 * @param protocol TCP, UDP or SCTP
 */
public record Port(String name, int port, String protocol) implements Comparable<Port> {

  public Port {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(protocol, "protocol");
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("port out of range: " + port);
    }
  }

  @Override
  public int compareTo(Port other) {
    int byName = name.compareTo(other.name);
    if (byName != 0) {
      return byName;
    }
    int byProtocol = protocol.compareTo(other.protocol);
    return byProtocol != 0 ? byProtocol : Integer.compare(port, other.port);
  }
}
