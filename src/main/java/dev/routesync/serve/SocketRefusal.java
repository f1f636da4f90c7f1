package dev.routesync.serve;

/**
 * Why a socket connection from a permitted peer was closed at accept, or one of its calls refused,
 * as a metric label.
 */
public enum SocketRefusal {
  /** The socket was at {@code --max-connections}. */
  CAP("cap"),
  /** The peer's uid held its share of the cap ({@link UidShare}). */
  UID_SHARE("uid_share"),
  /** A call refused: the socket had {@code --max-streams} calls open. */
  STREAM_CAP("stream_cap"),
  /** A call refused: the peer's uid held its share of {@code --max-streams}. */
  STREAM_SHARE("stream_share");

  private final String label;

  SocketRefusal(String label) {
    this.label = label;
  }

  public String label() {
    return label;
  }
}
