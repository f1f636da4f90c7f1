package dev.routesync.xds;

import dev.routesync.table.Endpoint;
import dev.routesync.table.Port;
import dev.routesync.table.ServiceEndpoints;
import java.util.Optional;
import java.util.TreeSet;

/**
 * Which of a Service's ports an xDS name's port means, as a rule for picking each endpoint's target
 * port. Through the Service's declared ports, a number or a name becomes the port's name, which
 * every endpoint carries with its own target number (a named {@code targetPort} can differ from pod
 * to pod). Only TCP ports: xDS clients speak TCP.
 *
 * @param name the Service port's name ({@code ""} for a single unnamed port), or null to match an
 *     endpoint port by {@code number} instead (the Service's declared ports are not known)
 * @param number the endpoint port number to match when {@code name} is null
 * @param podPort whether {@code number} is the pods' own port, which every endpoint serves: a
 *     headless Service that declares no ports has slices without ports ({@code ports: null}), and
 *     its DNS name gives a client the pods' addresses to reach on any port it chooses; an xDS name
 *     with a port number does the same
 */
record PortSelection(String name, int number, boolean podPort) {

  private static final String TCP = "TCP";

  PortSelection(String name, int number) {
    this(name, number, false);
  }

  /**
   * How {@code port} (from {@link XdsTarget#port()}) selects endpoint ports of {@code service}, or
   * empty when it selects none: no such port, or no port named and more than one to choose from.
   */
  static Optional<PortSelection> of(ServiceEndpoints service, String port) {
    if (!service.servicePorts().isEmpty()) {
      Port only = null;
      int tcp = 0;
      for (Port declared : service.servicePorts()) {
        if (!TCP.equals(declared.protocol())) {
          continue;
        }
        tcp++;
        only = declared;
        boolean matches =
            port.isEmpty()
                || (Character.isDigit(port.charAt(0))
                    ? String.valueOf(declared.port()).equals(port)
                    : declared.name().equals(port));
        if (matches && !port.isEmpty()) {
          return Optional.of(new PortSelection(declared.name(), 0));
        }
      }
      return port.isEmpty() && tcp == 1
          ? Optional.of(new PortSelection(only.name(), 0))
          : Optional.empty();
    }
    if (service.traffic().headless()) {
      // A headless Service known to declare no ports: a port number is the pods' own port; there
      // is no port name to look up, nor an only port.
      return port.isEmpty() || !Character.isDigit(port.charAt(0))
          ? Optional.empty()
          : Optional.of(new PortSelection(null, Integer.parseInt(port), true));
    }
    // The Service's own ports are not known (yet): read the endpoints' ports.
    if (port.isEmpty()) {
      TreeSet<String> names = new TreeSet<>();
      for (Endpoint endpoint : service.endpoints()) {
        for (Port carried : endpoint.ports()) {
          if (TCP.equals(carried.protocol())) {
            names.add(carried.name());
          }
        }
      }
      return names.size() == 1
          ? Optional.of(new PortSelection(names.first(), 0))
          : Optional.empty();
    }
    return Character.isDigit(port.charAt(0))
        ? Optional.of(new PortSelection(null, Integer.parseInt(port)))
        : Optional.of(new PortSelection(port, 0));
  }

  /** The port {@code endpoint} serves this selection on, or empty when it serves none. */
  Optional<Port> on(Endpoint endpoint) {
    if (podPort) {
      return Optional.of(new Port("", number, TCP));
    }
    for (Port carried : endpoint.ports()) {
      if (TCP.equals(carried.protocol())
          && (name != null ? name.equals(carried.name()) : carried.port() == number)) {
        return Optional.of(carried);
      }
    }
    return Optional.empty();
  }
}
