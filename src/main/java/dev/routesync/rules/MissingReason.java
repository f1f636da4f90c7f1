package dev.routesync.rules;

/** Why a pod that should be a ready endpoint of a Service port is not. */
public enum MissingReason {
  /** The named targetPort exists in none of the pod's containers. Certain from the specs. */
  NAMED_PORT_NOT_FOUND("NamedPortNotFound", true),
  /** A container declares the name, with another protocol. Certain from the specs. */
  PROTOCOL_MISMATCH("ProtocolMismatch", true),
  /**
   * The port resolves, yet the pod is not among the ready endpoints with that port. Not certain:
   * the controller may simply not have caught up, so it is reported only after a grace period.
   */
  NOT_IN_ENDPOINTS("NotInEndpoints", false);

  private final String label;
  private final boolean certain;

  MissingReason(String label, boolean certain) {
    this.label = label;
    this.certain = certain;
  }

  /** The reason as metrics, events and JSON spell it. */
  public String label() {
    return label;
  }

  /** Decided by the specs alone: no amount of waiting for the controller changes it. */
  public boolean certain() {
    return certain;
  }
}
