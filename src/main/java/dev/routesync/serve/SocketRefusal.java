package dev.routesync.serve;

/** Why a socket connection from a permitted peer was closed at accept, as a metric label. */
public enum SocketRefusal {
  /** The socket was at {@code --max-connections}. */
  CAP("cap"),
  /** The peer's uid held its share of the cap ({@link UidShare}). */
  UID_SHARE("uid_share");

  private final String label;

  SocketRefusal(String label) {
    this.label = label;
  }

  public String label() {
    return label;
  }
}
