package dev.routesync.kube.translate;

import dev.routesync.table.Port;
import dev.routesync.table.TableLimits;
import java.util.List;
import java.util.Optional;

/** Port validation shared by the slice and Endpoints translators (their port types differ). */
final class Ports {

  private Ports() {}

  /** A valid port, or empty after recording why not. */
  static Optional<Port> parse(
      String name,
      Integer number,
      String protocol,
      String object,
      String version,
      List<Skip> skips) {
    if (number == null || number < 1 || number > 65535) {
      skips.add(new Skip(SkipReason.INVALID_PORT, object, version, "port " + name + "=" + number));
      return Optional.empty();
    }
    if (!TableLimits.fits(name) || !TableLimits.fits(protocol)) {
      // Refused by the API server (a name is a 63-character label, the protocol one of three); the
      // port cannot be kept without changing which port it is (OverLimits).
      skips.add(
          new Skip(
              SkipReason.OVER_STATE_LIMITS,
              object,
              version,
              "port "
                  + number
                  + ": a name or protocol over the "
                  + TableLimits.MAX_STRING_BYTES
                  + " bytes a table string holds"));
      return Optional.empty();
    }
    return Optional.of(
        new Port(name == null ? "" : name, number, protocol == null ? "TCP" : protocol));
  }
}
