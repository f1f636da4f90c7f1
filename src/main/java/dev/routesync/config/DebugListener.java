package dev.routesync.config;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Objects;

/**
 * Where the debug listener ({@code /status}, {@code /logging}, {@code /debug/bundle}) listens. It
 * serves what only the node's operators should see or change (log levels, thread dumps, local
 * clients' uids and pids), so it binds a loopback address only, and people reach it with {@code
 * kubectl port-forward}, as Envoy's admin and Istio's ControlZ are reached.
 *
 * @param host a loopback address, or {@code localhost}
 * @param port its TCP port; 0 turns the listener off
 */
public record DebugListener(String host, int port) {

  public static final String DEFAULT_HOST = "127.0.0.1";
  public static final int DEFAULT_PORT = 9902;

  /** No debug listener (configurations built in code: tests, tools). */
  public static final DebugListener OFF = new DebugListener(DEFAULT_HOST, 0);

  public DebugListener {
    Objects.requireNonNull(host, "host");
    host = host.trim();
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("--debug-port must be between 0 and 65535, got " + port);
    }
    if (!isLoopback(host)) {
      throw new IllegalArgumentException(
          "--debug-host must be a loopback address (127.0.0.1, ::1 or localhost): the debug"
              + " listener serves log levels, thread dumps and local clients' identities; reach it"
              + " with kubectl port-forward; got '"
              + host
              + "'");
    }
  }

  public boolean enabled() {
    return port != 0;
  }

  // A literal is checked as written and a name must be localhost: no DNS lookup decides where
  // the listener goes.
  private static boolean isLoopback(String host) {
    if (host.equalsIgnoreCase("localhost")) {
      return true;
    }
    if (host.isEmpty() || !(host.indexOf(':') >= 0 || Character.isDigit(host.charAt(0)))) {
      return false;
    }
    try {
      return InetAddress.getByName(host).isLoopbackAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }
}
