package dev.routesync.serve;

/** Why the debug listener refused a request before answering it, as a metric label. */
public enum DebugRefusal {
  /**
   * The {@code Host} is not a loopback name or address: a browser sends that for a page whose name
   * was made to resolve to 127.0.0.1 (DNS rebinding), which could otherwise read every answer.
   */
  HOST("host"),
  /**
   * A request that changes something ({@code POST /logging}) from another origin: a page of another
   * site, open in a browser while a port-forward is, may send it but never read the answer.
   */
  ORIGIN("origin");

  private final String label;

  DebugRefusal(String label) {
    this.label = label;
  }

  public String label() {
    return label;
  }
}
