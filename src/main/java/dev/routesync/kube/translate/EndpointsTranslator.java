package dev.routesync.kube.translate;

import dev.routesync.table.Endpoint;
import dev.routesync.table.Ipv4;
import dev.routesync.table.Port;
import dev.routesync.table.ServiceKey;
import dev.routesync.table.ServiceTraffic;
import io.fabric8.kubernetes.api.model.EndpointAddress;
import io.fabric8.kubernetes.api.model.EndpointPort;
import io.fabric8.kubernetes.api.model.EndpointSubset;
import io.fabric8.kubernetes.api.model.Endpoints;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Pure translation of core {@code v1} Endpoints (legacy clusters) into table endpoints. Only {@code
 * addresses} are routable; {@code notReadyAddresses} are never read. Endpoints carry no zone and no
 * serving/terminating conditions, so every address is ready, serving and not terminating.
 */
public final class EndpointsTranslator {

  private EndpointsTranslator() {}

  /** The Service an Endpoints object belongs to: the same namespace and name. */
  public static Optional<ServiceKey> serviceKeyOf(Endpoints endpoints) {
    ObjectMeta meta = endpoints == null ? null : endpoints.getMetadata();
    if (meta == null
        || meta.getNamespace() == null
        || meta.getNamespace().isBlank()
        || meta.getName() == null
        || meta.getName().isBlank()) {
      return Optional.empty();
    }
    return Optional.of(new ServiceKey(meta.getNamespace(), meta.getName()));
  }

  public static Translation translate(Endpoints endpoints) {
    return ServiceMerge.merge(
        List.of(translateOne(endpoints)),
        ServiceTraffic.DEFAULT,
        serviceKeyOf(endpoints).orElse(null));
  }

  /** The object's endpoints (all ready: Endpoints list only ready addresses here) and skips. */
  public static ObjectTranslation translateOne(Endpoints endpoints) {
    List<Skip> skips = new ArrayList<>();
    EndpointMerger merger = new EndpointMerger();
    String object = describe(endpoints);
    String version = Skip.resourceVersionOf(endpoints);
    if (serviceKeyOf(endpoints).isEmpty()) {
      skips.add(new Skip(SkipReason.INVALID_METADATA, object, version, "no namespace or name"));
      return new ObjectTranslation(List.of(), skips);
    }
    OverLimits limits = new OverLimits(object, version);
    if (endpoints.getSubsets() != null) {
      for (EndpointSubset subset : endpoints.getSubsets()) {
        if (subset != null) {
          addSubset(subset, object, version, merger, limits, skips);
        }
      }
    }
    // An address in several subsets has the union of their ports: capped once unioned.
    List<Endpoint> all = limits.endpointPorts(merger.all(), "across the object's subsets");
    limits.addSkipTo(skips);
    return new ObjectTranslation(all, skips);
  }

  private static void addSubset(
      EndpointSubset subset,
      String object,
      String version,
      EndpointMerger merger,
      OverLimits limits,
      List<Skip> skips) {
    List<Port> ports = new ArrayList<>();
    if (subset.getPorts() != null) {
      for (EndpointPort port : subset.getPorts()) {
        Optional<Port> parsed =
            port == null
                ? Ports.parse(null, null, null, object, version, skips)
                : Ports.parse(
                    port.getName(), port.getPort(), port.getProtocol(), object, version, skips);
        if (parsed.isEmpty()) {
          return;
        }
        ports.add(parsed.get());
      }
    }
    ports.sort(null);
    // The API server does not cap a subset's ports.
    List<Port> shared = List.copyOf(limits.ports(ports, "a subset"));
    if (subset.getAddresses() == null) {
      return;
    }
    for (EndpointAddress address : subset.getAddresses()) {
      String ip = address == null ? null : address.getIp();
      long ipv4 = Ipv4.parse(ip);
      String canonical = ipv4 < 0 ? IpAddresses.canonicalIpv6(ip) : null;
      if (ipv4 < 0 && canonical == null) {
        skips.add(
            new Skip(SkipReason.INVALID_IP, object, version, "address " + ip + " is not an IP"));
        continue;
      }
      String node = SliceTranslator.shared(limits.field(address.getNodeName(), "nodeName", ip));
      String pod =
          limits.field(SliceTranslator.podName(address.getTargetRef()), "targetRef.name", ip);
      merger.add(
          canonical == null
              ? Endpoint.ofIpv4((int) ipv4, shared, null, node, pod, true, true, false)
              : new Endpoint(canonical, shared, null, node, pod, true, true, false));
    }
  }

  static String describe(Endpoints endpoints) {
    ObjectMeta meta = endpoints == null ? null : endpoints.getMetadata();
    return meta == null ? "Endpoints ?" : "Endpoints " + meta.getNamespace() + "/" + meta.getName();
  }
}
