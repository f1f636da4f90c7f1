package dev.routesync.serve;

import dev.routesync.startup.Reasons;

/**
 * A listener that cannot bind names itself: the agent has up to three (socket, tcp, admin), and
 * "Address already in use" alone does not say which flag to change.
 */
public final class ListenFailures {

  private ListenFailures() {}

  /** {@code "<listener> listener <address>: <reason>"}, with the cause kept. */
  public static IllegalStateException of(String listener, String address, Throwable cause) {
    return new IllegalStateException(
        listener + " listener " + address + ": " + Reasons.of(cause), cause);
  }

  /** {@code host:port}, with an IPv6 literal in brackets. */
  public static String hostPort(String host, int port) {
    return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
  }
}
