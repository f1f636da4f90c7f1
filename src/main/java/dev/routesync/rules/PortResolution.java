package dev.routesync.rules;

import java.util.List;
import java.util.Optional;

/** What {@code FindPort} makes of one Service port for one pod. */
public sealed interface PortResolution {

  /** The pod serves the Service port on {@code port}: it is an endpoint of that port. */
  record Resolved(int port, Via via, Optional<DeclaredPort> declared) implements PortResolution {}

  /**
   * No container declares the named targetPort: the pod is left out of the port's endpoints, and
   * nothing marks it failed. This is the seed's incident.
   *
   * @param declared every port the pod declares, in search order (for the message)
   * @param closest the declared name most like the wanted one, if the pod declares any
   */
  record NotFound(String name, List<DeclaredPort> declared, Optional<String> closest)
      implements PortResolution {}

  /**
   * A container declares the name, but with another protocol: {@code FindPort} matches name and
   * protocol together, so the pod is left out just the same.
   */
  record ProtocolMismatch(String name, String wanted, DeclaredPort declared)
      implements PortResolution {}

  /** How a resolved port was found. */
  enum Via {
    /** A numeric targetPort, used as is: no container needs to declare it. */
    NUMBER,
    /** targetPort omitted, 0 or "": the Service's own port. */
    SERVICE_PORT,
    /** A named targetPort found in a regular container. */
    CONTAINER,
    /** A named targetPort found only in a restartable init container (Kubernetes 1.32+). */
    SIDECAR
  }

  default boolean resolved() {
    return this instanceof Resolved;
  }
}
