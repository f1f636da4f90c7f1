package dev.routesync.table;

import java.util.List;
import java.util.Objects;

/**
 * One routable address of a Service, with just the attributes sidecars act on. Immutable, with
 * value equality on every attribute, like a record; but laid out compactly, because a large cluster
 * has hundreds of thousands of these and every node's agent holds them all: 48 bytes with
 * compressed oops, against 40 for the record plus 56 for its IP string and 73 for its pod name
 * (MemoryBenchmark). Text is made at the edge: {@link #ip()} and {@link #pod()} build a string when
 * called, while equality, hashing and ordering never do.
 *
 * <ul>
 *   <li>An IPv4 address is an {@code int}. Anything else (IPv6, in the RFC 5952 form the
 *       translators make) keeps its text: IPv6 is rare here, and two {@code long}s would cost every
 *       endpoint 16 bytes more.
 *   <li>A pod name is split at its last '-' into a shared, interned prefix and a suffix of up to 8
 *       ASCII characters packed into a {@code long} ({@link PodNames}); other names stay whole.
 *   <li>The conditions are bits of one byte.
 *   <li>The zone and the hints share one field: the zone's (interned) text when the endpoint has no
 *       hints (nearly always), else a small {@code ZonedHints} holding both. So hints cost an
 *       endpoint nothing until it has some.
 * </ul>
 *
 * <p>Attributes, as the accessors return them:
 *
 * <ul>
 *   <li>{@code ip}: IPv4 dotted quad, or IPv6 in RFC 5952 form (lower case, zeros compressed)
 *   <li>{@code ports}: sorted by name; empty when the slice lists no ports (a headless Service)
 *   <li>{@code zone}: topology zone, or {@code null} when the slice does not say
 *   <li>{@code hints}: the slice's {@code hints.forZones} and {@code hints.forNodes}; {@link
 *       EndpointHints#NONE} when it has none
 *   <li>{@code node}: node name, or {@code null}
 *   <li>{@code pod}: name of the target pod, or {@code null} when the target is not a pod
 *   <li>{@code ready}: the endpoint may receive new traffic
 *   <li>{@code serving}: the endpoint passes readiness, regardless of terminating
 *   <li>{@code terminating}: the pod is shutting down
 * </ul>
 */
public final class Endpoint implements Comparable<Endpoint> {

  private static final byte READY = 1;
  private static final byte SERVING = 2;
  private static final byte TERMINATING = 4;

  /** The IPv4 address when {@link #ipText} is {@code null}. */
  private final int ipv4;

  /** The pod name's packed suffix, 0 when {@link #podText} is the whole name (or null). */
  private final long podSuffix;

  /** {@code null} for IPv4; otherwise the address's text (IPv6). */
  private final String ipText;

  private final List<Port> ports;

  /** The zone (a String, or null) when there are no hints; else a {@link ZonedHints}. */
  private final Object zoneOrHints;

  private final String node;

  /** The interned prefix of the pod name when {@link #podSuffix} is not 0, else the name. */
  private final String podText;

  private final byte flags;

  /**
   * @param ip IPv4 dotted quad, or IPv6 in RFC 5952 form; text that is not a strict dotted quad is
   *     kept as given
   * @param ports sorted by name (copied unless already an unmodifiable list)
   */
  public Endpoint(
      String ip,
      List<Port> ports,
      String zone,
      String node,
      String pod,
      boolean ready,
      boolean serving,
      boolean terminating) {
    this(ip, ports, zone, EndpointHints.NONE, node, pod, ready, serving, terminating);
  }

  /**
   * An endpoint with hints.
   *
   * @param hints {@link EndpointHints#NONE} when the slice gives none
   */
  public Endpoint(
      String ip,
      List<Port> ports,
      String zone,
      EndpointHints hints,
      String node,
      String pod,
      boolean ready,
      boolean serving,
      boolean terminating) {
    Objects.requireNonNull(ip, "ip");
    long parsed = Ipv4.parse(ip);
    this.ipv4 = parsed < 0 ? 0 : (int) parsed;
    this.ipText = parsed < 0 ? ip : null;
    this.ports = List.copyOf(ports);
    this.zoneOrHints = zoneOrHints(zone, hints);
    this.node = node;
    this.podSuffix = PodNames.suffix(pod);
    this.podText = PodNames.text(pod, podSuffix);
    this.flags = flags(ready, serving, terminating);
  }

  private Endpoint(
      int ipv4,
      String ipText,
      List<Port> ports,
      Object zoneOrHints,
      String node,
      String podText,
      long podSuffix,
      byte flags) {
    this.ipv4 = ipv4;
    this.ipText = ipText;
    this.ports = ports;
    this.zoneOrHints = zoneOrHints;
    this.node = node;
    this.podText = podText;
    this.podSuffix = podSuffix;
    this.flags = flags;
  }

  /**
   * An IPv4 endpoint from an address already parsed ({@link Ipv4#parse}), so translators scan each
   * address once.
   */
  public static Endpoint ofIpv4(
      int address,
      List<Port> ports,
      String zone,
      String node,
      String pod,
      boolean ready,
      boolean serving,
      boolean terminating) {
    return ofIpv4(address, ports, zone, EndpointHints.NONE, node, pod, ready, serving, terminating);
  }

  /** {@link #ofIpv4(int, List, String, String, String, boolean, boolean, boolean)} with hints. */
  public static Endpoint ofIpv4(
      int address,
      List<Port> ports,
      String zone,
      EndpointHints hints,
      String node,
      String pod,
      boolean ready,
      boolean serving,
      boolean terminating) {
    long suffix = PodNames.suffix(pod);
    return new Endpoint(
        address,
        null,
        List.copyOf(ports),
        zoneOrHints(zone, hints),
        node,
        PodNames.text(pod, suffix),
        suffix,
        flags(ready, serving, terminating));
  }

  /** This endpoint with other ports (sorted by name). */
  public Endpoint withPorts(List<Port> ports) {
    return new Endpoint(
        ipv4, ipText, List.copyOf(ports), zoneOrHints, node, podText, podSuffix, flags);
  }

  /** The zone and hints as one field's value: the zone alone unless there are hints. */
  private static Object zoneOrHints(String zone, EndpointHints hints) {
    return hints == null || hints.isEmpty() ? zone : new ZonedHints(zone, hints);
  }

  /** An endpoint's zone beside its hints, when it has hints. */
  private record ZonedHints(String zone, EndpointHints hints) {}

  private static byte flags(boolean ready, boolean serving, boolean terminating) {
    return (byte) ((ready ? READY : 0) | (serving ? SERVING : 0) | (terminating ? TERMINATING : 0));
  }

  /** The address's text; a new string for IPv4. */
  public String ip() {
    return ipText != null ? ipText : Ipv4.format(ipv4);
  }

  /** Whether the address is IPv4 (then {@link #ipv4()} is it). */
  public boolean isIpv4() {
    return ipText == null;
  }

  /** The IPv4 address, first octet in the high byte; meaningless unless {@link #isIpv4()}. */
  public int ipv4() {
    return ipv4;
  }

  public List<Port> ports() {
    return ports;
  }

  public String zone() {
    return zoneOrHints instanceof ZonedHints zoned ? zoned.zone() : (String) zoneOrHints;
  }

  /** The slice's hints for this endpoint; {@link EndpointHints#NONE} when none. */
  public EndpointHints hints() {
    return zoneOrHints instanceof ZonedHints zoned ? zoned.hints() : EndpointHints.NONE;
  }

  public String node() {
    return node;
  }

  /** The pod's name, or {@code null}; a new string when the name is split. */
  public String pod() {
    return PodNames.join(podText, podSuffix);
  }

  public boolean ready() {
    return (flags & READY) != 0;
  }

  public boolean serving() {
    return (flags & SERVING) != 0;
  }

  public boolean terminating() {
    return (flags & TERMINATING) != 0;
  }

  /** Whether both have the same address (the order's equality: {@code compareTo == 0}). */
  public boolean sameAddress(Endpoint other) {
    return ipv4 == other.ipv4 && Objects.equals(ipText, other.ipText);
  }

  /**
   * Orders by IP text: deterministic, not numeric ({@code 10.0.0.10} sorts before {@code
   * 10.0.0.9}), as the text record did, so state files and outputs keep their order. Computed from
   * the stored form, making no strings.
   */
  @Override
  public int compareTo(Endpoint other) {
    if (ipText == null) {
      return other.ipText == null
          ? Ipv4.compareAsText(ipv4, other.ipv4)
          : Ipv4.compareAsText(ipv4, other.ipText);
    }
    return other.ipText == null
        ? -Ipv4.compareAsText(other.ipv4, ipText)
        : ipText.compareTo(other.ipText);
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    // Cheapest and most telling first; prefixes, zones and nodes are interned, so their equals
    // usually ends at ==.
    return o instanceof Endpoint other
        && ipv4 == other.ipv4
        && podSuffix == other.podSuffix
        && flags == other.flags
        && Objects.equals(ipText, other.ipText)
        && Objects.equals(podText, other.podText)
        && Objects.equals(node, other.node)
        && Objects.equals(zoneOrHints, other.zoneOrHints)
        && ports.equals(other.ports);
  }

  @Override
  public int hashCode() {
    int hash = ipText == null ? ipv4 : ipText.hashCode();
    hash = 31 * hash + ports.hashCode();
    hash = 31 * hash + Objects.hashCode(zone());
    if (zoneOrHints instanceof ZonedHints zoned) {
      hash = 31 * hash + zoned.hints().hashCode();
    }
    hash = 31 * hash + Objects.hashCode(node);
    hash = 31 * hash + Objects.hashCode(podText);
    hash = 31 * hash + Long.hashCode(podSuffix);
    return 31 * hash + flags;
  }

  /** The same text the record printed. */
  @Override
  public String toString() {
    return "Endpoint[ip="
        + ip()
        + ", ports="
        + ports
        + ", zone="
        + zone()
        + (zoneOrHints instanceof ZonedHints zoned ? ", hints=" + zoned.hints() : "")
        + ", node="
        + node
        + ", pod="
        + pod()
        + ", ready="
        + ready()
        + ", serving="
        + serving()
        + ", terminating="
        + terminating()
        + "]";
  }
}
