package dev.routesync.rules;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A pod missing from a Service port's ready endpoints, and why.
 *
 * @param reason the reason
 * @param declaredNames the port names the pod declares, in search order
 * @param closest the declared name most like the wanted one, when the reason is a name not found
 * @param message one line for people: the port, the reason, the declared names
 */
public record Missing(
    MissingReason reason, List<String> declaredNames, Optional<String> closest, String message) {

  public Missing {
    Objects.requireNonNull(reason, "reason");
    declaredNames = List.copyOf(declaredNames);
    Objects.requireNonNull(closest, "closest");
    Objects.requireNonNull(message, "message");
  }
}
