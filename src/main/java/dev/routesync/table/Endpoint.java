package dev.routesync.table;

import java.util.ArrayList;
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
 *   <li>The zone, the hints and a dual-stack pod's other addresses share one field: the zone's
 *       (interned) text when the endpoint has neither hints nor other addresses (nearly always),
 *       else a small {@code More} holding all three. So hints and a second address cost an endpoint
 *       nothing until it has them.
 * </ul>
 *
 * <p>Attributes, as the accessors return them:
 *
 * <ul>
 *   <li>{@code ip}: the primary address: IPv4 dotted quad, or IPv6 in RFC 5952 form (lower case,
 *       zeros compressed). The endpoint's identity, order and equality follow it.
 *   <li>{@code additionalAddresses}: a dual-stack pod's other addresses, in the Service's family
 *       order (the primary is the first family's); empty for a single-stack endpoint
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

  /**
   * The zone (a String, or null) when there are neither hints nor additional addresses; else a
   * {@link More}.
   */
  private final Object zoneOrMore;

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
    this.zoneOrMore = zoneOrMore(zone, hints);
    this.node = node;
    this.podSuffix = PodNames.suffix(pod);
    this.podText = PodNames.text(pod, podSuffix);
    this.flags = flags(ready, serving, terminating);
  }

  private Endpoint(
      int ipv4,
      String ipText,
      List<Port> ports,
      Object zoneOrMore,
      String node,
      String podText,
      long podSuffix,
      byte flags) {
    this.ipv4 = ipv4;
    this.ipText = ipText;
    this.ports = ports;
    this.zoneOrMore = zoneOrMore;
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
        zoneOrMore(zone, hints),
        node,
        PodNames.text(pod, suffix),
        suffix,
        flags(ready, serving, terminating));
  }

  /** This endpoint with other ports (sorted by name). */
  public Endpoint withPorts(List<Port> ports) {
    return new Endpoint(
        ipv4, ipText, List.copyOf(ports), zoneOrMore, node, podText, podSuffix, flags);
  }

  /** This endpoint with other conditions. */
  public Endpoint withConditions(boolean ready, boolean serving, boolean terminating) {
    return new Endpoint(
        ipv4,
        ipText,
        ports,
        zoneOrMore,
        node,
        podText,
        podSuffix,
        flags(ready, serving, terminating));
  }

  /**
   * This endpoint with {@code additional} as its other addresses (a dual-stack pod's, in the
   * Service's family order), replacing any it had.
   *
   * @param additional IP texts as the translators make them (IPv4 dotted quad, IPv6 in RFC 5952
   *     form), none equal to {@link #ip()} or to another; empty for none
   * @throws IllegalArgumentException for a null, blank or repeated address, or the primary again
   */
  public Endpoint withAdditionalAddresses(List<String> additional) {
    List<String> copy = List.copyOf(additional);
    String primary = ip();
    for (int i = 0; i < copy.size(); i++) {
      String address = copy.get(i);
      if (address.isBlank() || address.equals(primary) || copy.subList(0, i).contains(address)) {
        throw new IllegalArgumentException(
            "additional address " + address + " of " + primary + " is blank or repeated");
      }
    }
    String zone = zone();
    EndpointHints hints = hints();
    Object merged =
        copy.isEmpty()
            ? zoneOrMore(zone, hints)
            : new More(zone, hints.isEmpty() ? EndpointHints.NONE : hints, copy);
    return new Endpoint(ipv4, ipText, ports, merged, node, podText, podSuffix, flags);
  }

  /** The zone and hints as one field's value: the zone alone unless there are hints. */
  private static Object zoneOrMore(String zone, EndpointHints hints) {
    return hints == null || hints.isEmpty() ? zone : new More(zone, hints, List.of());
  }

  /**
   * What an endpoint rarely has, beside its zone: hints ({@link EndpointHints#NONE} when none) and
   * a dual-stack pod's other addresses (empty when none). Present only when one of them is.
   */
  private record More(String zone, EndpointHints hints, List<String> additionalAddresses) {

    // Written out, as Endpoint's own: with topology hints every endpoint has a More, compared on
    // each translation check, and C1 calls a generated equals through method handles.
    @Override
    public boolean equals(Object o) {
      return this == o
          || o instanceof More other
              && Objects.equals(zone, other.zone)
              && hints.equals(other.hints)
              && additionalAddresses.equals(other.additionalAddresses);
    }

    @Override
    public int hashCode() {
      return (31 * Objects.hashCode(zone) + hints.hashCode()) * 31 + additionalAddresses.hashCode();
    }
  }

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
    return zoneOrMore instanceof More more ? more.zone() : (String) zoneOrMore;
  }

  /** The slice's hints for this endpoint; {@link EndpointHints#NONE} when none. */
  public EndpointHints hints() {
    return zoneOrMore instanceof More more ? more.hints() : EndpointHints.NONE;
  }

  /**
   * A dual-stack pod's addresses after the primary ({@link #ip()}), in the Service's family order;
   * empty for a single-stack endpoint (nearly always).
   */
  public List<String> additionalAddresses() {
    return zoneOrMore instanceof More more ? more.additionalAddresses() : List.of();
  }

  /** Every address, the primary first, then {@link #additionalAddresses()}; new strings. */
  public List<String> addresses() {
    List<String> additional = additionalAddresses();
    if (additional.isEmpty()) {
      return List.of(ip());
    }
    List<String> all = new ArrayList<>(additional.size() + 1);
    all.add(ip());
    all.addAll(additional);
    return List.copyOf(all);
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

  /** Whether the endpoint targets a pod ({@link #pod()} is not null). */
  public boolean hasPod() {
    return podText != null;
  }

  /** Whether both target the same pod name (false when either targets none); makes no text. */
  public boolean samePod(Endpoint other) {
    return podText != null && podSuffix == other.podSuffix && podText.equals(other.podText);
  }

  /**
   * A total order on pod names as stored (not their text order), for grouping the endpoints of one
   * pod; {@code 0} exactly when {@link #samePod} (or neither has a pod). Makes no text.
   */
  public int comparePod(Endpoint other) {
    if (podText == null || other.podText == null) {
      return podText == null ? (other.podText == null ? 0 : -1) : 1;
    }
    int byText = podText.compareTo(other.podText);
    return byText != 0 ? byText : Long.compare(podSuffix, other.podSuffix);
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
        && Objects.equals(zoneOrMore, other.zoneOrMore)
        && ports.equals(other.ports);
  }

  @Override
  public int hashCode() {
    int hash = ipText == null ? ipv4 : ipText.hashCode();
    hash = 31 * hash + ports.hashCode();
    hash = 31 * hash + Objects.hashCode(zone());
    if (zoneOrMore instanceof More more) {
      hash = 31 * hash + more.hints().hashCode();
      hash = 31 * hash + more.additionalAddresses().hashCode();
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
        + (hints().isEmpty() ? "" : ", hints=" + hints())
        + (additionalAddresses().isEmpty() ? "" : ", additionalAddresses=" + additionalAddresses())
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
