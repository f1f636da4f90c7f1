package dev.routesync.serve;

import dev.routesync.units.Durations;
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
 * @param bodyTimeout a request's body (for gRPC, the request message and the end of the client's
 *     side) must have arrived this long after its headers, or the request is cancelled ({@link
 *     BodyDeadline}); calls whose client streams (ADS, reflection) are exempt
 * @param maxStreams HTTP/2 streams (calls) open at once on the socket, over all its connections;
 *     shared out per uid as the connections are ({@link StreamShare}); a call over it is refused
 *     with {@code RESOURCE_EXHAUSTED}
 */
public record ConnectionLimits(
    int maxConnections,
    Duration headerTimeout,
    Duration idleTimeout,
    Duration bodyTimeout,
    int maxStreams) {

  public static final int DEFAULT_MAX_CONNECTIONS = 1024;
  public static final String DEFAULT_HEADER_TIMEOUT_TEXT = "10s";
  public static final String DEFAULT_IDLE_TIMEOUT_TEXT = "5m";
  public static final Duration DEFAULT_HEADER_TIMEOUT =
      Durations.parse(DEFAULT_HEADER_TIMEOUT_TEXT);
  public static final Duration DEFAULT_IDLE_TIMEOUT = Durations.parse(DEFAULT_IDLE_TIMEOUT_TEXT);
  public static final String DEFAULT_BODY_TIMEOUT_TEXT = "5s";
  public static final Duration DEFAULT_BODY_TIMEOUT = Durations.parse(DEFAULT_BODY_TIMEOUT_TEXT);
  public static final int DEFAULT_MAX_STREAMS = 4096;

  /** The socket listener's defaults. */
  public static final ConnectionLimits DEFAULT =
      new ConnectionLimits(
          DEFAULT_MAX_CONNECTIONS,
          DEFAULT_HEADER_TIMEOUT,
          DEFAULT_IDLE_TIMEOUT,
          DEFAULT_BODY_TIMEOUT,
          DEFAULT_MAX_STREAMS);

  /** The admin listener: kubelet and Prometheus need a handful of connections, never more. */
  public static final int ADMIN_MAX_CONNECTIONS = 64;

  /** The admin listener: connections one source address may hold (see {@link SourceShare}). */
  public static final int ADMIN_MAX_PER_SOURCE = 8;

  /** With the default body timeout. */
  public ConnectionLimits(int maxConnections, Duration headerTimeout, Duration idleTimeout) {
    this(maxConnections, headerTimeout, idleTimeout, DEFAULT_BODY_TIMEOUT);
  }

  /** With the default stream cap. */
  public ConnectionLimits(
      int maxConnections, Duration headerTimeout, Duration idleTimeout, Duration bodyTimeout) {
    this(maxConnections, headerTimeout, idleTimeout, bodyTimeout, DEFAULT_MAX_STREAMS);
  }

  public ConnectionLimits {
    Objects.requireNonNull(headerTimeout, "headerTimeout");
    Objects.requireNonNull(idleTimeout, "idleTimeout");
    Objects.requireNonNull(bodyTimeout, "bodyTimeout");
    if (bodyTimeout.isNegative() || bodyTimeout.isZero()) {
      throw new IllegalArgumentException("body timeout must be positive, got " + bodyTimeout);
    }
    if (maxStreams < 1) {
      throw new IllegalArgumentException("max streams must be at least 1, got " + maxStreams);
    }
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

  /**
   * The operator's limits, from the flags: the ranges a production agent accepts, each message
   * naming its flag. The constructor accepts shorter timeouts, for tests.
   */
  public static ConnectionLimits of(
      int maxConnections, Duration headerTimeout, Duration idleTimeout) {
    return of(
        maxConnections, headerTimeout, idleTimeout, DEFAULT_BODY_TIMEOUT, DEFAULT_MAX_STREAMS);
  }

  /** As above, with {@code --body-timeout} and {@code --max-streams} too. */
  public static ConnectionLimits of(
      int maxConnections,
      Duration headerTimeout,
      Duration idleTimeout,
      Duration bodyTimeout,
      int maxStreams) {
    if (maxStreams < 1 || maxStreams > 1_000_000) {
      throw new IllegalArgumentException(
          "--max-streams must be between 1 and 1000000, got " + maxStreams);
    }
    if (maxConnections < 1 || maxConnections > 1_000_000) {
      throw new IllegalArgumentException(
          "--max-connections must be between 1 and 1000000, got " + maxConnections);
    }
    return new ConnectionLimits(
        maxConnections,
        Durations.requireWithin(
            "--header-timeout", headerTimeout, Duration.ofSeconds(1), Duration.ofMinutes(5)),
        Durations.requireWithin(
            "--idle-timeout", idleTimeout, Duration.ofSeconds(1), Duration.ofHours(24)),
        Durations.requireWithin(
            "--body-timeout", bodyTimeout, Duration.ofSeconds(1), Duration.ofMinutes(5)),
        maxStreams);
  }

  /** The admin listener's limits: the same timeouts, its own small cap. */
  public ConnectionLimits forAdmin() {
    return new ConnectionLimits(
        ADMIN_MAX_CONNECTIONS, headerTimeout, idleTimeout, bodyTimeout, maxStreams);
  }
}
