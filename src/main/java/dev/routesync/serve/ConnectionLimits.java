package dev.routesync.serve;

import java.time.Duration;
import java.util.Objects;

/**
 * What one listener allows a connection.
 *
 * @param maxConnections connections open at once; one more is closed at accept
 * @param headerTimeout a request must be complete this long after its first byte (and the first
 *     request this long after the connection opened): a client that trickles headers (slowloris) or
 *     sends nothing is closed
 * @param idleTimeout a connection with no request in flight (HTTP/1 between requests, HTTP/2 with
 *     no open stream) is closed after this long; an open Watch stream is a request in flight, so it
 *     is never cut however long nothing is published
 */
public record ConnectionLimits(int maxConnections, Duration headerTimeout, Duration idleTimeout) {

  public static final int DEFAULT_MAX_CONNECTIONS = 1024;
  public static final Duration DEFAULT_HEADER_TIMEOUT = Duration.ofSeconds(10);
  public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofMinutes(5);

  /** The socket listener's defaults. */
  public static final ConnectionLimits DEFAULT =
      new ConnectionLimits(DEFAULT_MAX_CONNECTIONS, DEFAULT_HEADER_TIMEOUT, DEFAULT_IDLE_TIMEOUT);

  /** The admin listener: kubelet and Prometheus need a handful of connections, never more. */
  public static final int ADMIN_MAX_CONNECTIONS = 64;

  public ConnectionLimits {
    Objects.requireNonNull(headerTimeout, "headerTimeout");
    Objects.requireNonNull(idleTimeout, "idleTimeout");
    if (maxConnections < 1) {
      throw new IllegalArgumentException(
          "max connections must be at least 1, got " + maxConnections);
    }
    if (headerTimeout.isNegative() || headerTimeout.isZero()) {
      throw new IllegalArgumentException("header timeout must be positive, got " + headerTimeout);
    }
    if (idleTimeout.isNegative() || idleTimeout.isZero()) {
      throw new IllegalArgumentException("idle timeout must be positive, got " + idleTimeout);
    }
  }

  /** The admin listener's limits: the same timeouts, its own small cap. */
  public ConnectionLimits forAdmin() {
    return new ConnectionLimits(ADMIN_MAX_CONNECTIONS, headerTimeout, idleTimeout);
  }
}
