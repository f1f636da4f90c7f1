package dev.routesync.kube.translate;

import dev.routesync.table.Endpoint;
import dev.routesync.table.EndpointHints;
import dev.routesync.table.Ipv4;
import dev.routesync.table.Port;
import dev.routesync.table.ServiceKey;
import dev.routesync.table.ServiceTraffic;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointConditions;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPort;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.ForNode;
import io.fabric8.kubernetes.api.model.discovery.v1.ForZone;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Pure translation of {@code discovery.k8s.io/v1} EndpointSlices into table endpoints. No state, no
 * I/O, never throws on malformed input: what cannot be used is reported as a {@link Skip}.
 */
public final class SliceTranslator {

  /** The label the EndpointSlice controller sets to the owning Service's name. */
  public static final String SERVICE_NAME_LABEL = "kubernetes.io/service-name";

  private SliceTranslator() {}

  /** The Service a slice belongs to, or empty when it lacks the label or metadata. */
  public static Optional<ServiceKey> serviceKeyOf(EndpointSlice slice) {
    ObjectMeta meta = slice == null ? null : slice.getMetadata();
    if (meta == null || isBlank(meta.getNamespace())) {
      return Optional.empty();
    }
    Map<String, String> labels = meta.getLabels();
    String service = labels == null ? null : labels.get(SERVICE_NAME_LABEL);
    return isBlank(service)
        ? Optional.empty()
        : Optional.of(new ServiceKey(meta.getNamespace(), service));
  }

  /** Merges all slices of one service into its routable endpoints. */
  public static Translation translate(Collection<EndpointSlice> slices) {
    List<EndpointSlice> ordered = new ArrayList<>(slices);
    // Deterministic merge order whatever order the cache returns.
    ordered.sort(Comparator.comparing(SliceTranslator::describe));
    List<ObjectTranslation> translations = new ArrayList<>(ordered.size());
    for (EndpointSlice slice : ordered) {
      translations.add(translateOne(slice));
    }
    ServiceKey service = ordered.isEmpty() ? null : serviceKeyOf(ordered.get(0)).orElse(null);
    return ServiceMerge.merge(translations, ServiceTraffic.DEFAULT, service);
  }

  /** One slice's endpoints (all of them, one per IP) and skips, for {@link ServiceMerge}. */
  public static ObjectTranslation translateOne(EndpointSlice slice) {
    List<Skip> skips = new ArrayList<>();
    EndpointMerger merger = new EndpointMerger();
    String object = describe(slice);
    String version = Skip.resourceVersionOf(slice);
    OverLimits limits = new OverLimits(object, version);
    addSlice(slice, object, version, merger, limits, skips);
    limits.addSkipTo(skips);
    // Every endpoint of a slice has the slice's ports, already within the limit: an address listed
    // twice in it unions nothing new. Unions across slices are capped where they are merged.
    return new ObjectTranslation(merger.all(), skips);
  }

  private static void addSlice(
      EndpointSlice slice,
      String object,
      String version,
      EndpointMerger merger,
      OverLimits limits,
      List<Skip> skips) {
    if (serviceKeyOf(slice).isEmpty()) {
      skips.add(new Skip(SkipReason.NO_SERVICE_LABEL, object, version, "no " + SERVICE_NAME_LABEL));
      return;
    }
    String addressType = slice.getAddressType();
    boolean ipv6;
    if ("IPv4".equals(addressType)) {
      ipv6 = false;
    } else if ("IPv6".equals(addressType)) {
      ipv6 = true;
    } else if ("FQDN".equals(addressType)) {
      skips.add(new Skip(SkipReason.FQDN, object, version, "FQDN slices are not routed"));
      return;
    } else {
      skips.add(
          new Skip(SkipReason.UNKNOWN_ADDRESS_TYPE, object, version, "addressType=" + addressType));
      return;
    }
    Optional<List<Port>> ports = ports(slice.getPorts(), object, version, limits, skips);
    if (ports.isEmpty()) {
      return;
    }
    if (slice.getEndpoints() == null) {
      return;
    }
    for (io.fabric8.kubernetes.api.model.discovery.v1.Endpoint endpoint : slice.getEndpoints()) {
      if (endpoint == null) {
        continue;
      }
      List<String> addresses = endpoint.getAddresses();
      // The API defines only the first address as meaningful for IP slices.
      String ip = addresses == null || addresses.isEmpty() ? null : addresses.get(0);
      // IPv4 is parsed once, into the endpoint's int; IPv6 becomes canonical text, so the same
      // address written two ways is published once.
      long ipv4 = ipv6 ? -1 : Ipv4.parse(ip);
      String canonical = ipv6 ? IpAddresses.canonicalIpv6(ip) : null;
      if (ipv4 < 0 && canonical == null) {
        skips.add(
            new Skip(
                SkipReason.INVALID_IP,
                object,
                version,
                "address " + ip + " is not " + addressType));
        continue;
      }
      EndpointConditions conditions = endpoint.getConditions();
      // kube-proxy's reading: ready and serving default to true when absent, terminating to false.
      boolean ready = conditions == null || !Boolean.FALSE.equals(conditions.getReady());
      boolean serving = conditions == null || !Boolean.FALSE.equals(conditions.getServing());
      boolean terminating = conditions != null && Boolean.TRUE.equals(conditions.getTerminating());
      String zone = shared(limits.field(endpoint.getZone(), "zone", ip));
      String node = shared(limits.field(endpoint.getNodeName(), "nodeName", ip));
      String pod = limits.field(podName(endpoint.getTargetRef()), "targetRef.name", ip);
      EndpointHints hints = hints(endpoint.getHints(), limits, ip);
      merger.add(
          canonical == null
              ? Endpoint.ofIpv4(
                  (int) ipv4, ports.get(), zone, hints, node, pod, ready, serving, terminating)
              : new Endpoint(
                  canonical, ports.get(), zone, hints, node, pod, ready, serving, terminating));
    }
  }

  private static Optional<List<Port>> ports(
      List<EndpointPort> ports,
      String object,
      String version,
      OverLimits limits,
      List<Skip> skips) {
    if (ports == null) {
      return Optional.of(List.of());
    }
    List<Port> result = new ArrayList<>(ports.size());
    for (EndpointPort port : ports) {
      Optional<Port> parsed =
          port == null
              ? Ports.parse(null, null, null, object, version, skips)
              : Ports.parse(
                  port.getName(), port.getPort(), port.getProtocol(), object, version, skips);
      if (parsed.isEmpty()) {
        return Optional.empty();
      }
      result.add(parsed.get());
    }
    result.sort(null);
    // One list shared by every endpoint of the slice. (The API server allows 100 ports a slice.)
    return Optional.of(List.copyOf(limits.ports(result, "the slice")));
  }

  /**
   * The most hint names kept per endpoint and kind. The API server allows 8 zone hints per endpoint
   * and the controller writes one (zone or node); a longer list is cut here rather than held. Under
   * {@link dev.routesync.table.TableLimits#MAX_HINTS}, so a cut here is not one the table needs.
   */
  static final int MAX_HINTS = 8;

  /**
   * The endpoint's hints, names interned, sorted and distinct, a name over a table string's bytes
   * left out ({@code limits}); {@link EndpointHints#NONE}.
   *
   * @param of the endpoint's address, for the warning
   */
  static EndpointHints hints(
      io.fabric8.kubernetes.api.model.discovery.v1.EndpointHints hints,
      OverLimits limits,
      String of) {
    if (hints == null) {
      return EndpointHints.NONE;
    }
    List<String> zones = new ArrayList<>();
    if (hints.getForZones() != null) {
      for (ForZone zone : hints.getForZones()) {
        addHint(zones, limits.field(zone == null ? null : zone.getName(), "zone hint", of));
      }
    }
    List<String> nodes = new ArrayList<>();
    if (hints.getForNodes() != null) {
      for (ForNode node : hints.getForNodes()) {
        addHint(nodes, limits.field(node == null ? null : node.getName(), "node hint", of));
      }
    }
    zones.sort(null);
    nodes.sort(null);
    return EndpointHints.of(zones, nodes);
  }

  private static void addHint(List<String> names, String name) {
    if (!isBlank(name) && names.size() < MAX_HINTS && !names.contains(name)) {
      names.add(name.intern());
    }
  }

  /**
   * One instance per distinct zone or node name. There are a handful of zones and at most a few
   * thousand nodes, but one copy per endpoint (as JSON decoding makes them) was the largest part of
   * the table's memory. JVM-interned strings are collected once unused, so node churn does not
   * leak.
   */
  static String shared(String text) {
    return text == null ? null : text.intern();
  }

  static String podName(ObjectReference ref) {
    return ref != null && "Pod".equals(ref.getKind()) ? ref.getName() : null;
  }

  static String describe(EndpointSlice slice) {
    ObjectMeta meta = slice == null ? null : slice.getMetadata();
    return meta == null
        ? "EndpointSlice ?"
        : "EndpointSlice " + meta.getNamespace() + "/" + meta.getName();
  }

  private static boolean isBlank(String text) {
    return text == null || text.isBlank();
  }
}
