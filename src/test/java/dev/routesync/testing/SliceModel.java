package dev.routesync.testing;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodIP;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.TreeMap;

/**
 * The EndpointSlice controller's per-object rules, transcribed for the tests' model of it from
 * kubernetes {@code staging/src/k8s.io/endpointslice} ({@code utils.go}: {@code podToEndpoint},
 * {@code getEndpointPorts}, {@code findPort}, {@code setEndpointSliceLabels}, {@code
 * getAddressTypesForService}; {@code util/controller_utils.go}: {@code ShouldPodBeInEndpoints}).
 *
 * <p>Written independently of the product's {@code dev.routesync.rules} on purpose: this is the
 * reference the product is tested against, so the two must not share a mistake.
 *
 * <p>Where the real controller reads a field the API server defaults and the CRUD mock does not (a
 * port's protocol, a Service port's targetPort, a Service's IP families and clusterIP), the default
 * is applied here, as the API server would have applied it before the controller saw it.
 */
final class SliceModel {

  static final String SERVICE_NAME_LABEL = "kubernetes.io/service-name";
  static final String MANAGED_BY_LABEL = "endpointslice.kubernetes.io/managed-by";
  static final String CONTROLLER_NAME = "endpointslice-controller.k8s.io";
  static final String HEADLESS_LABEL = "service.kubernetes.io/headless";
  static final String TRIGGER_TIME_ANNOTATION = "endpoints.kubernetes.io/last-change-trigger-time";
  static final String ZONE_LABEL = "topology.kubernetes.io/zone";

  private SliceModel() {}

  /** One port of a slice: what {@code discovery.EndpointPort} holds. Ordered for the group key. */
  record PortSpec(String name, int port, String protocol, String appProtocol)
      implements Comparable<PortSpec> {

    private static final Comparator<PortSpec> ORDER =
        Comparator.comparing(PortSpec::name)
            .thenComparingInt(PortSpec::port)
            .thenComparing(PortSpec::protocol)
            .thenComparing(p -> Objects.toString(p.appProtocol(), ""));

    @Override
    public int compareTo(PortSpec other) {
      return ORDER.compare(this, other);
    }
  }

  /**
   * One endpoint. {@link #id} is what the controller hashes an endpoint by (addresses, hostname,
   * the Pod's namespace and name); the rest is compared by {@link #sameBeyondId}, as {@code
   * EndpointsEqualBeyondHash} does.
   */
  record Ep(
      List<String> addresses,
      String hostname,
      String namespace,
      String name,
      String uid,
      String nodeName,
      String zone,
      Boolean ready,
      Boolean serving,
      Boolean terminating) {

    String id() {
      return String.join(",", addresses.stream().sorted().toList())
          + "|"
          + Objects.toString(hostname, "")
          + "|"
          + Objects.toString(namespace, "")
          + "/"
          + Objects.toString(name, "");
    }

    boolean sameBeyondId(Ep other) {
      return Objects.equals(nodeName, other.nodeName)
          && Objects.equals(zone, other.zone)
          && Objects.equals(ready, other.ready)
          && Objects.equals(serving, other.serving)
          && Objects.equals(terminating, other.terminating)
          && Objects.equals(uid, other.uid)
          && Objects.equals(namespace, other.namespace)
          && Objects.equals(name, other.name);
    }
  }

  /** The controller's switches that differ between Kubernetes versions. */
  record Options(boolean sidecarPorts, int maxEndpointsPerSlice) {

    /** Kubernetes >= 1.32: restartable init containers' ports resolve; 100 endpoints a slice. */
    static final Options DEFAULT = new Options(true, 100);
  }

  /** The controller manages only Services with a selector that are not ExternalName. */
  static boolean isManaged(Service service) {
    if (service.getSpec() == null) {
      return false;
    }
    // The API server stores an empty selector as none (protobuf keeps no empty map).
    Map<String, String> selector = service.getSpec().getSelector();
    return !"ExternalName".equals(service.getSpec().getType())
        && selector != null
        && !selector.isEmpty();
  }

  static boolean selects(Service service, Pod pod) {
    Map<String, String> labels = pod.getMetadata().getLabels();
    return Objects.equals(service.getMetadata().getNamespace(), pod.getMetadata().getNamespace())
        && labels != null
        && labels.entrySet().containsAll(service.getSpec().getSelector().entrySet());
  }

  /** {@code ShouldPodBeInEndpoints(pod, includeTerminating=true)}. */
  static boolean shouldBeInEndpoints(Pod pod) {
    if (pod.getStatus() == null) {
      return false;
    }
    String phase = pod.getStatus().getPhase();
    if ("Succeeded".equals(phase) || "Failed".equals(phase)) {
      return false;
    }
    return !podIps(pod).isEmpty();
  }

  static boolean isReady(Pod pod) {
    if (pod.getStatus() == null || pod.getStatus().getConditions() == null) {
      return false;
    }
    for (PodCondition condition : pod.getStatus().getConditions()) {
      if ("Ready".equals(condition.getType())) {
        return "True".equals(condition.getStatus());
      }
    }
    return false;
  }

  /** {@code status.podIPs}; the API server fills it from {@code status.podIP} when it is absent. */
  static List<String> podIps(Pod pod) {
    List<String> ips = new ArrayList<>();
    if (pod.getStatus().getPodIPs() != null) {
      for (PodIP ip : pod.getStatus().getPodIPs()) {
        if (ip.getIp() != null && !ip.getIp().isEmpty()) {
          ips.add(ip.getIp());
        }
      }
    }
    if (ips.isEmpty()
        && pod.getStatus().getPodIP() != null
        && !pod.getStatus().getPodIP().isEmpty()) {
      ips.add(pod.getStatus().getPodIP());
    }
    return ips;
  }

  static String addressTypeOf(String ip) {
    return ip.contains(":") ? "IPv6" : "IPv4";
  }

  /**
   * {@code getAddressTypesForService}. The API server always sets {@code spec.ipFamilies}; the mock
   * does not, so without them the family of the clusterIP decides, else IPv4 (a single-stack IPv4
   * cluster's default). Tests of IPv6 set {@code ipFamilies: [IPv6]}.
   */
  static List<String> addressTypes(Service service) {
    List<String> families = service.getSpec().getIpFamilies();
    List<String> types = new ArrayList<>();
    if (families != null) {
      for (String family : families) {
        if ("IPv4".equals(family) || "IPv6".equals(family)) {
          types.add(family);
        }
      }
    }
    if (!types.isEmpty()) {
      return types;
    }
    String clusterIp = service.getSpec().getClusterIP();
    if (clusterIp != null && !clusterIp.isEmpty() && !"None".equals(clusterIp)) {
      return List.of(addressTypeOf(clusterIp));
    }
    return List.of("IPv4");
  }

  /**
   * {@code findPort}: the number a Service port's targetPort resolves to for one Pod, or empty if
   * it resolves to none (the Pod is then left out of that port's endpoints).
   */
  static OptionalInt findPort(Pod pod, ServicePort servicePort, Options options) {
    IntOrString target = servicePort.getTargetPort();
    Integer number = target == null ? null : target.getIntVal();
    String name = target == null ? null : target.getStrVal();
    // API server defaulting: omitted, 0 or "" is the Service port.
    if ((number == null && (name == null || name.isEmpty())) || (number != null && number == 0)) {
      return OptionalInt.of(servicePort.getPort());
    }
    if (number != null) {
      return OptionalInt.of(number);
    }
    String protocol = protocol(servicePort.getProtocol());
    OptionalInt found = findNamed(pod.getSpec().getContainers(), name, protocol, false);
    if (found.isPresent() || !options.sidecarPorts()) {
      return found;
    }
    return findNamed(pod.getSpec().getInitContainers(), name, protocol, true);
  }

  private static OptionalInt findNamed(
      List<Container> containers, String name, String protocol, boolean onlyRestartable) {
    if (containers == null) {
      return OptionalInt.empty();
    }
    for (Container container : containers) {
      if (onlyRestartable && !"Always".equals(container.getRestartPolicy())) {
        continue;
      }
      if (container.getPorts() == null) {
        continue;
      }
      for (ContainerPort port : container.getPorts()) {
        if (name.equals(port.getName()) && protocol.equals(protocol(port.getProtocol()))) {
          return OptionalInt.of(port.getContainerPort());
        }
      }
    }
    return OptionalInt.empty();
  }

  static String protocol(String protocol) {
    return protocol == null || protocol.isEmpty() ? "TCP" : protocol;
  }

  /** {@code getEndpointPorts}, sorted: the key the controller groups a Service's Pods by. */
  static List<PortSpec> endpointPorts(Service service, Pod pod, Options options) {
    List<PortSpec> ports = new ArrayList<>();
    List<ServicePort> servicePorts = service.getSpec().getPorts();
    if (servicePorts == null) {
      return ports;
    }
    for (ServicePort servicePort : servicePorts) {
      OptionalInt number = findPort(pod, servicePort, options);
      if (number.isEmpty()) {
        continue;
      }
      ports.add(
          new PortSpec(
              Objects.toString(servicePort.getName(), ""),
              number.getAsInt(),
              protocol(servicePort.getProtocol()),
              servicePort.getAppProtocol()));
    }
    ports.sort(null);
    return ports;
  }

  /** {@code podToEndpoint}, for one address type; {@code node} may be null (unknown Node). */
  static Ep endpoint(Pod pod, Node node, Service service, String addressType) {
    boolean serving = isReady(pod);
    boolean terminating = pod.getMetadata().getDeletionTimestamp() != null;
    // "ready" is never true for a terminating Pod, unless publishNotReadyAddresses.
    boolean ready =
        Boolean.TRUE.equals(service.getSpec().getPublishNotReadyAddresses())
            || (serving && !terminating);
    List<String> addresses =
        podIps(pod).stream().filter(ip -> addressTypeOf(ip).equals(addressType)).toList();
    String nodeName = pod.getSpec().getNodeName();
    String zone = null;
    if (node != null && node.getMetadata().getLabels() != null) {
      String label = node.getMetadata().getLabels().get(ZONE_LABEL);
      zone = label == null || label.isEmpty() ? null : label;
    }
    String hostname = pod.getSpec().getHostname();
    boolean setHostname =
        hostname != null
            && !hostname.isEmpty()
            && service.getMetadata().getName().equals(pod.getSpec().getSubdomain());
    return new Ep(
        addresses,
        setHostname ? hostname : null,
        pod.getMetadata().getNamespace(),
        pod.getMetadata().getName(),
        pod.getMetadata().getUid(),
        nodeName == null || nodeName.isEmpty() ? null : nodeName,
        zone,
        ready,
        serving,
        terminating);
  }

  /** The labels a slice must carry, and whether its copy of the Service's labels is out of date. */
  record Labels(Map<String, String> labels, boolean changed) {}

  /** {@code setEndpointSliceLabels}. */
  static Labels sliceLabels(Map<String, String> sliceLabels, Service service) {
    Map<String, String> current = new TreeMap<>();
    if (sliceLabels != null) {
      sliceLabels.forEach(
          (key, value) -> {
            if (!isReserved(key)) {
              current.put(key, value);
            }
          });
    }
    Map<String, String> wanted = new TreeMap<>();
    if (service.getMetadata().getLabels() != null) {
      service
          .getMetadata()
          .getLabels()
          .forEach(
              (key, value) -> {
                if (!isReserved(key)) {
                  wanted.put(key, value);
                }
              });
    }
    boolean changed = !current.equals(wanted);
    Map<String, String> labels = new LinkedHashMap<>(wanted);
    if (isHeadless(service)) {
      labels.put(HEADLESS_LABEL, "");
    }
    labels.put(SERVICE_NAME_LABEL, service.getMetadata().getName());
    labels.put(MANAGED_BY_LABEL, CONTROLLER_NAME);
    return new Labels(labels, changed);
  }

  private static boolean isReserved(String key) {
    return key.equals(SERVICE_NAME_LABEL)
        || key.equals(MANAGED_BY_LABEL)
        || key.equals(HEADLESS_LABEL);
  }

  /**
   * {@code !isServiceIPSet}. The real test is "clusterIP is None or empty"; the mock allocates no
   * clusterIPs, so only an explicit None counts as headless here (a real API server would have
   * allocated one).
   */
  static boolean isHeadless(Service service) {
    return "None".equals(service.getSpec().getClusterIP());
  }
}
