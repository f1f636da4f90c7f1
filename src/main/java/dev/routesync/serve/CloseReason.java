package dev.routesync.serve;

/** Why the agent closed a connection, as a metric label. */
public enum CloseReason {
  /** A request, or a new connection's first one, was not complete within the header timeout. */
  HEADER_TIMEOUT("header_timeout"),
  /** Nothing in flight for the idle timeout. */
  IDLE("idle"),
  /** The agent is stopping and the connection had nothing in flight. */
  DRAIN("drain"),
  /**
   * Closed at accept: the peer's uid or gid is not in {@code --allow-uids} / {@code --allow-gids},
   * or its credentials could not be read while they restrict.
   */
  PEER("peer"),
  /**
   * Idle, and closed to make room: on the admin port, a new connection from an address at its
   * share, or at the listener's cap, takes the place of the connection idle the longest.
   */
  EVICTED("evicted");

  private final String label;

  CloseReason(String label) {
    this.label = label;
  }

  public String label() {
    return label;
  }
}
