package dev.routesync.xds;

import dev.routesync.table.Port;
import dev.routesync.table.ServiceEndpoints;
import java.util.OptionalInt;

/**
 * Which port of an ExternalName Service's external host an xDS name's port means. A DNS client of
 * the Service's name follows its CNAME and connects to the port it chose, so a port number is that
 * port, declared or not; a port name is the declared port of that name; no port is the Service's
 * only declared TCP port.
 */
final class ExternalPorts {

  private static final String TCP = "TCP";

  private ExternalPorts() {}

  /** The external port {@code port} (from {@link XdsTarget#port()}) means, or empty for none. */
  static OptionalInt of(ServiceEndpoints service, String port) {
    if (!port.isEmpty() && Character.isDigit(port.charAt(0))) {
      return OptionalInt.of(Integer.parseInt(port));
    }
    Port only = null;
    int tcp = 0;
    for (Port declared : service.servicePorts()) {
      if (!TCP.equals(declared.protocol())) {
        continue;
      }
      if (!port.isEmpty() && declared.name().equals(port)) {
        return OptionalInt.of(declared.port());
      }
      tcp++;
      only = declared;
    }
    return port.isEmpty() && tcp == 1 ? OptionalInt.of(only.port()) : OptionalInt.empty();
  }
}
