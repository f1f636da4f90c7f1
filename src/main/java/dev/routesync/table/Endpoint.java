package dev.routesync.table;

import java.util.List;
import java.util.Objects;

/**
 * One routable address of a Service, with just the attributes sidecars act on (kept small: there
 * are hundreds of thousands of these in a large cluster).
 *
 * @param ip IPv4 dotted quad, or IPv6 in RFC 5952 form (lower case, zeros compressed)
 * @param ports sorted by name; empty when the slice lists no ports (a headless Service)
 * @param zone topology zone, or {@code null} when the slice does not say
 * @param node node name, or {@code null}
 * @param pod name of the target pod, or {@code null} when the target is not a pod
 * @param ready the endpoint may receive new traffic
 * @param serving the endpoint passes readiness, regardless of terminating
 * @param terminating the pod is shutting down
 */
public record Endpoint(
    String ip,
    List<Port> ports,
    String zone,
    String node,
    String pod,
    boolean ready,
    boolean serving,
    boolean terminating)
    implements Comparable<Endpoint> {

  public Endpoint {
    Objects.requireNonNull(ip, "ip");
    ports = List.copyOf(ports);
  }

  /**
   * Orders by IP text: deterministic, not numeric ({@code 10.0.0.10} sorts before {@code
   * 10.0.0.9}).
   */
  @Override
  public int compareTo(Endpoint other) {
    return ip.compareTo(other.ip);
  }
}
