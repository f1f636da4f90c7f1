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

  /**
   * Written out, with the generated one's meaning: every endpoint's ports are compared whenever an
   * object's translation is checked against the one held, and the image runs C1 only, which calls a
   * record's generated equals through its chain of method handles instead of inlining it: 8x slower
   * over 50 ports (RecordEqualityBenchmark). Names and protocols are mostly the same interned
   * instances.
   */
  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    return o instanceof Port other
        && port == other.port
        && name.equals(other.name)
        && protocol.equals(other.protocol);
  }

  @Override
  public int hashCode() {
    return (31 * name.hashCode() + port) * 31 + protocol.hashCode();
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
