package dev.routesync.rules;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.ServiceSpec;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A Service reduced to what a long-lived holder of many Services reads: its identity ({@code
 * namespace}, {@code name}, {@code uid}, {@code resourceVersion}) and what these rules read ({@link
 * ServiceSelection}, {@link PodStates#isExpected}, {@link TargetPorts}, {@link EndpointCheck}):
 * {@code spec.selector}, {@code spec.type}, {@code spec.publishNotReadyAddresses}, whether it is
 * headless ({@code clusterIP: None}), {@code spec.externalName} (at most 253 characters) and each
 * port's {@code name}, {@code port}, {@code targetPort} and {@code protocol}; and what the table
 * reads ({@code trafficDistribution}, {@code internalTrafficPolicy}, {@code ipFamilies}). The rules
 * give the same answer for a Service and its compact form.
 *
 * <p>Why: a Service as the API server returns it carries {@code managedFields}, kubectl's {@code
 * last-applied-configuration} (the whole manifest again), labels, cluster IPs and a status: about 8
 * KB decoded, where the compact form is a few hundred bytes. Every fabric8 model object allocates
 * its own empty collections (an {@code additionalProperties} map each, and every list and map
 * field); the compact form shares immutable empty ones instead, and interns the small strings that
 * repeat across Services (namespace, type, port names and protocols, selector pairs) and its name,
 * which other holders of the same Service keep too.
 *
 * <p>The result is a fabric8 {@link Service}, so lint, gate and the drift detector call the same
 * rules on it; it is read-only in practice: its collections are immutable.
 */
public final class CompactServices {

  private static final String API_VERSION = "v1";
  private static final String KIND = "Service";

  /** {@code spec.clusterIP} of a headless Service. */
  public static final String HEADLESS = "None";

  /** The longest {@code spec.externalName} kept: a DNS name's longest spelling (RFC 1035). */
  public static final int MAX_EXTERNAL_NAME_CHARS = 253;

  private CompactServices() {}

  /**
   * The compact form of {@code service}: the same instance when it is compact already (so holders
   * that meet it twice keep one copy), null for null.
   */
  public static Service compact(Service service) {
    if (service == null) {
      return null;
    }
    Service compact = new Service();
    compact.setApiVersion(API_VERSION);
    compact.setKind(KIND);
    compact.setMetadata(metadata(service.getMetadata()));
    compact.setSpec(spec(service.getSpec()));
    compact.setAdditionalProperties(Map.of());
    return compact.equals(service) ? service : compact;
  }

  /** The identity of an object, nothing else: namespace (interned), name, uid, resourceVersion. */
  public static ObjectMeta metadata(ObjectMeta meta) {
    if (meta == null) {
      return null;
    }
    ObjectMeta compact = new ObjectMeta();
    compact.setNamespace(intern(meta.getNamespace()));
    // Interned: the same name is the table's key and the drift detector's (from the Service's
    // slices), and a relist decodes it again; one instance for all of them.
    compact.setName(intern(meta.getName()));
    compact.setUid(meta.getUid());
    compact.setResourceVersion(meta.getResourceVersion());
    compact.setAnnotations(Map.of());
    compact.setLabels(Map.of());
    compact.setFinalizers(List.of());
    compact.setManagedFields(List.of());
    compact.setOwnerReferences(List.of());
    compact.setAdditionalProperties(Map.of());
    return compact;
  }

  /** What the rules read of a spec: selector, type, publishNotReadyAddresses, ports. */
  public static ServiceSpec spec(ServiceSpec spec) {
    if (spec == null) {
      return null;
    }
    ServiceSpec compact = new ServiceSpec();
    compact.setSelector(selector(spec.getSelector()));
    compact.setType(intern(spec.getType()));
    compact.setPublishNotReadyAddresses(spec.getPublishNotReadyAddresses());
    compact.setPorts(ports(spec.getPorts()));
    // Where the table routes (the Services watch's topology settings).
    compact.setTrafficDistribution(intern(spec.getTrafficDistribution()));
    compact.setInternalTrafficPolicy(intern(spec.getInternalTrafficPolicy()));
    // Which address of a dual-stack pod is its primary (the first family).
    compact.setIpFamilies(ipFamilies(spec.getIpFamilies()));
    // What kind of Service it is: headless (only "None" is kept: a cluster IP itself is read by
    // nothing) and an ExternalName's target, bounded like a DNS name (a longer one is dropped, and
    // the Service's reader counts it as malformed).
    compact.setClusterIP(HEADLESS.equals(spec.getClusterIP()) ? HEADLESS : null);
    String externalName = spec.getExternalName();
    compact.setExternalName(
        externalName != null && externalName.length() <= MAX_EXTERNAL_NAME_CHARS
            ? externalName
            : null);
    compact.setClusterIPs(List.of());
    compact.setExternalIPs(List.of());
    compact.setLoadBalancerSourceRanges(List.of());
    compact.setAdditionalProperties(Map.of());
    return compact;
  }

  private static final List<List<String>> FAMILY_LISTS =
      List.of(List.of("IPv4"), List.of("IPv6"), List.of("IPv4", "IPv6"), List.of("IPv6", "IPv4"));

  /**
   * {@code spec.ipFamilies}: one shared list for each of the four the API server allows, so it
   * costs a Service nothing; anything else (a hand-made object) keeps its first two entries, the
   * most a Service has, interned.
   */
  private static List<String> ipFamilies(List<String> families) {
    if (families == null || families.isEmpty()) {
      return List.of();
    }
    for (List<String> known : FAMILY_LISTS) {
      if (known.equals(families)) {
        return known;
      }
    }
    List<String> kept = new ArrayList<>(2);
    for (String family : families.subList(0, Math.min(2, families.size()))) {
      kept.add(intern(family));
    }
    return kept.contains(null) ? kept : List.copyOf(kept);
  }

  private static Map<String, String> selector(Map<String, String> selector) {
    if (selector == null) {
      return null;
    }
    Map<String, String> interned = new LinkedHashMap<>();
    boolean nulls = false;
    for (Map.Entry<String, String> pair : selector.entrySet()) {
      nulls |= pair.getKey() == null || pair.getValue() == null;
      interned.put(intern(pair.getKey()), intern(pair.getValue()));
    }
    // Map.copyOf is a third of a LinkedHashMap's size, but refuses nulls (which the API server
    // never sends in a selector; a hand-made object might).
    return nulls ? interned : Map.copyOf(interned);
  }

  private static List<ServicePort> ports(List<ServicePort> ports) {
    if (ports == null) {
      return null;
    }
    List<ServicePort> compact = new ArrayList<>(ports.size());
    for (ServicePort port : ports) {
      compact.add(port == null ? null : port(port));
    }
    // List.copyOf refuses nulls; the rules skip a null port, so keep it where one was.
    return compact.contains(null) ? compact : List.copyOf(compact);
  }

  private static ServicePort port(ServicePort port) {
    ServicePort compact = new ServicePort();
    compact.setName(intern(port.getName()));
    compact.setPort(port.getPort());
    compact.setProtocol(intern(port.getProtocol()));
    compact.setTargetPort(targetPort(port.getTargetPort()));
    compact.setAdditionalProperties(Map.of());
    return compact;
  }

  private static IntOrString targetPort(IntOrString target) {
    if (target == null) {
      return null;
    }
    if (target.getIntVal() != null) {
      return new IntOrString(target.getIntVal());
    }
    return target.getStrVal() == null
        ? new IntOrString()
        : new IntOrString(intern(target.getStrVal()));
  }

  private static String intern(String text) {
    return text == null ? null : text.intern();
  }
}
