package dev.routesync.serve;

import dev.routesync.table.ServiceEndpoints;
import dev.routesync.table.ServiceKey;
import java.util.Optional;

/**
 * The message of a single-Service lookup that finds no endpoints to give: gRPC's NOT_FOUND and
 * HTTP's 404 say the same thing. An ExternalName Service is in the table (List and Watch carry its
 * external name) but has no endpoints by design: the message names where it points, so a client
 * knows to resolve that name by DNS rather than wait for endpoints.
 */
final class NotFound {

  private NotFound() {}

  /** Why {@code key} ({@code entry}: its table entry, if any) has no endpoints to give. */
  static String message(ServiceKey key, Optional<ServiceEndpoints> entry) {
    if (entry.isPresent() && entry.get().traffic().isExternalName()) {
      return "service "
          + key
          + " is type ExternalName, a DNS alias of "
          + entry.get().traffic().externalName()
          + ": it has no endpoints; resolve that name by DNS (xDS clients get a LOGICAL_DNS"
          + " cluster to it)";
    }
    return "service " + key + " not found";
  }
}
