package dev.routesync.bench;

import dev.routesync.rules.ControllerSlices;
import dev.routesync.rules.ServiceSelection;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.ServicePortBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPort;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPortBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A synthetic cluster as the drift detector's three watches see it, built the way the API server
 * and the EndpointSlice controller write the objects: {@code services} mesh-managed Services in
 * namespaces of {@value #SERVICES_PER_NAMESPACE}, this node's {@value #PODS_PER_NAMESPACE} pods in
 * each of the first {@value #NODE_NAMESPACES} namespaces ({@value #PODS} pods), and one controller
 * slice per Service (two for a Service selecting a drifting pod).
 *
 * <p>Every namespace has the same shape, whatever {@code services} is: Service {@code s-i} selects
 * {@code app=a-(i % 40)}; {@code s-40..s-79} also {@code tier=web}, {@code s-80..s-99} also {@code
 * version=v1}. Port {@code http} (80, named targetPort {@code http}) on every Service, plus {@code
 * metrics} (numeric targetPort 9090) on every third. Pod {@code j} (0..10) of a namespace carries
 * {@code app=a-j}, {@code tier=web} when j is even, {@code version=v1} unless j % 3 == 0, and a
 * {@code pod-template-hash}: so each pod is selected by 1 to 3 Services (24 of a namespace's 100
 * select a pod here), and the selector index offers each pod its 3 Services of app {@code a-j}.
 * More Services means more namespaces with no pod on this node: the namespaces with pods here, and
 * their Services, are the same at 1,000 and at 10,000 Services.
 *
 * <p>Each slice lists its Service's pods here as ready endpoints, plus {@value #OTHER_ENDPOINTS}
 * pods of other nodes. Drift: pod 5 of the first {@value #DRIFTING} namespaces declares {@code
 * http-api} instead of {@code http} (the seed's rename); the controller puts it in a separate slice
 * with only the ports it resolves ({@code ports: null} for an http-only Service).
 *
 * <p>Every object has two versions (resourceVersion "1" and "2", differing in an annotation, or in
 * a slice in one other node's endpoint readiness), so an event is always a real change.
 */
final class DriftCluster {

  static final String NODE = "node-a";
  static final int SERVICES_PER_NAMESPACE = 100;
  static final int NODE_NAMESPACES = 10;
  static final int PODS_PER_NAMESPACE = 11;
  static final int PODS = NODE_NAMESPACES * PODS_PER_NAMESPACE;
  static final int DRIFTING = 5;
  static final int DRIFTING_POD = 5;
  static final int OTHER_ENDPOINTS = 3;
  private static final int APPS = 40;

  /** Two versions of each of this node's pods. */
  final Pod[][] pods;

  /** Two versions of each Service. */
  final Service[][] services;

  /** Two versions of each Service's main slice (the one listing its ready pods with its ports). */
  final EndpointSlice[][] slices;

  /** The second slice of a drifting pod's Services; not changed by the benchmarks. */
  final List<EndpointSlice> driftSlices = new ArrayList<>();

  /** Indexes into {@link #services} of the Services selecting a pod on this node. */
  final int[] withPodsHere;

  /** Indexes into {@link #services} of the Services selecting none of this node's pods. */
  final int[] withoutPodsHere;

  /** Indexes into {@link #services} of the Services in the namespaces with pods here. */
  final int[] inNodeNamespaces;

  /** The drifts the detector must report: one per drifting pod, Service selecting it, and port. */
  final int expectedDrifts;

  DriftCluster(int serviceCount) {
    if (serviceCount % SERVICES_PER_NAMESPACE != 0
        || serviceCount / SERVICES_PER_NAMESPACE < NODE_NAMESPACES) {
      throw new IllegalArgumentException(
          "services must be a multiple of "
              + SERVICES_PER_NAMESPACE
              + ", at least "
              + NODE_NAMESPACES * SERVICES_PER_NAMESPACE);
    }
    int namespaces = serviceCount / SERVICES_PER_NAMESPACE;
    pods = new Pod[PODS][];
    for (int n = 0; n < NODE_NAMESPACES; n++) {
      for (int j = 0; j < PODS_PER_NAMESPACE; j++) {
        boolean drifting = n < DRIFTING && j == DRIFTING_POD;
        Pod pod = pod(namespace(n), j, drifting);
        pods[n * PODS_PER_NAMESPACE + j] = new Pod[] {pod, podVersion2(pod)};
      }
    }
    services = new Service[serviceCount][];
    slices = new EndpointSlice[serviceCount][];
    List<Integer> with = new ArrayList<>();
    List<Integer> without = new ArrayList<>();
    int drifts = 0;
    for (int n = 0; n < namespaces; n++) {
      for (int i = 0; i < SERVICES_PER_NAMESPACE; i++) {
        int index = n * SERVICES_PER_NAMESPACE + i;
        Service service = service(namespace(n), i);
        services[index] = new Service[] {service, serviceVersion2(service)};
        List<Pod> selected = new ArrayList<>();
        List<Pod> unresolved = new ArrayList<>();
        if (n < NODE_NAMESPACES) {
          for (int j = 0; j < PODS_PER_NAMESPACE; j++) {
            Pod pod = pods[n * PODS_PER_NAMESPACE + j][0];
            if (ServiceSelection.selectorMatches(
                service.getSpec().getSelector(), pod.getMetadata().getLabels())) {
              (n < DRIFTING && j == DRIFTING_POD ? unresolved : selected).add(pod);
            }
          }
        }
        (selected.isEmpty() && unresolved.isEmpty() ? without : with).add(index);
        EndpointSlice main = slice(service, "main", selected, true, slicePorts(service, false));
        slices[index] = new EndpointSlice[] {main, sliceVersion2(main)};
        if (!unresolved.isEmpty()) {
          // The pod resolves only the numeric ports: the controller's slice for that port set.
          driftSlices.add(slice(service, "drift", unresolved, false, slicePorts(service, true)));
          drifts += unresolved.size(); // http, the named port, is missing
        }
      }
    }
    withPodsHere = with.stream().mapToInt(Integer::intValue).toArray();
    withoutPodsHere = without.stream().mapToInt(Integer::intValue).toArray();
    inNodeNamespaces = new int[NODE_NAMESPACES * SERVICES_PER_NAMESPACE];
    for (int i = 0; i < inNodeNamespaces.length; i++) {
      inNodeNamespaces[i] = i;
    }
    expectedDrifts = drifts;
  }

  List<Pod> initialPods() {
    List<Pod> list = new ArrayList<>();
    for (Pod[] versions : pods) {
      list.add(versions[0]);
    }
    return list;
  }

  List<Service> initialServices() {
    List<Service> list = new ArrayList<>();
    for (Service[] versions : services) {
      list.add(versions[0]);
    }
    return list;
  }

  List<EndpointSlice> initialSlices() {
    List<EndpointSlice> list = new ArrayList<>();
    for (EndpointSlice[] versions : slices) {
      list.add(versions[0]);
    }
    list.addAll(driftSlices);
    return list;
  }

  static String namespace(int n) {
    return String.format("ns-%03d", n);
  }

  private static Pod pod(String namespace, int j, boolean drifting) {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put("app", app(j));
    labels.put("pod-template-hash", "h" + j);
    if (j % 2 == 0) {
      labels.put("tier", "web");
    }
    if (j % 3 != 0) {
      labels.put("version", "v1");
    }
    return new PodBuilder()
        .withNewMetadata()
        .withNamespace(namespace)
        .withName(app(j) + "-h" + j + "-x")
        .withUid(uid(namespace, j))
        .withResourceVersion("1")
        .withLabels(labels)
        .endMetadata()
        .withNewSpec()
        .withNodeName(NODE)
        .addNewContainer()
        .withName("app")
        .withImage("app:1")
        .addNewPort()
        .withName(drifting ? "http-api" : "http")
        .withContainerPort(8080)
        .endPort()
        .addNewPort()
        .withName("metrics")
        .withContainerPort(9090)
        .endPort()
        .endContainer()
        .endSpec()
        .withNewStatus()
        .withPhase("Running")
        .withPodIP(podIp(namespace, j))
        .addNewCondition()
        .withType("Ready")
        .withStatus("True")
        .endCondition()
        .endStatus()
        .build();
  }

  /** A label-preserving update that leaves the pod Ready (a status or annotation change). */
  private static Pod podVersion2(Pod pod) {
    return new PodBuilder(pod)
        .editMetadata()
        .withResourceVersion("2")
        .addToAnnotations("bench/rev", "2")
        .endMetadata()
        .build();
  }

  private static Service service(String namespace, int i) {
    Map<String, String> selector = new LinkedHashMap<>();
    selector.put("app", app(i % APPS));
    if (i >= APPS && i < 2 * APPS) {
      selector.put("tier", "web");
    } else if (i >= 2 * APPS) {
      selector.put("version", "v1");
    }
    List<ServicePort> ports = new ArrayList<>();
    ports.add(
        new ServicePortBuilder()
            .withName("http")
            .withPort(80)
            .withProtocol("TCP")
            .withTargetPort(new IntOrString("http"))
            .build());
    if (i % 3 == 0) {
      ports.add(
          new ServicePortBuilder()
              .withName("metrics")
              .withPort(9090)
              .withProtocol("TCP")
              .withTargetPort(new IntOrString(9090))
              .build());
    }
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace(namespace)
        .withName(String.format("s-%03d", i))
        .withResourceVersion("1")
        .withLabels(Map.of("mesh-managed", "true"))
        .endMetadata()
        .withNewSpec()
        .withSelector(selector)
        .withPorts(ports)
        .endSpec()
        .build();
  }

  /** A label or annotation change: a new resourceVersion, the same selector and ports. */
  private static Service serviceVersion2(Service service) {
    return new ServiceBuilder(service)
        .editMetadata()
        .withResourceVersion("2")
        .addToAnnotations("bench/rev", "2")
        .endMetadata()
        .build();
  }

  /** The slice ports: every Service port, or (for pods not resolving a name) the numeric ones. */
  private static List<EndpointPort> slicePorts(Service service, boolean numericOnly) {
    List<EndpointPort> ports = new ArrayList<>();
    for (ServicePort port : service.getSpec().getPorts()) {
      boolean named = port.getTargetPort().getStrVal() != null;
      if (numericOnly && named) {
        continue;
      }
      ports.add(
          new EndpointPortBuilder()
              .withName(port.getName())
              .withPort(named ? 8080 : port.getTargetPort().getIntVal())
              .withProtocol("TCP")
              .build());
    }
    return ports;
  }

  private static EndpointSlice slice(
      Service service,
      String suffix,
      List<Pod> podsHere,
      boolean withOthers,
      List<EndpointPort> ports) {
    String namespace = service.getMetadata().getNamespace();
    String name = service.getMetadata().getName();
    List<Endpoint> endpoints = new ArrayList<>();
    for (Pod pod : podsHere) {
      endpoints.add(
          endpoint(
              pod.getStatus().getPodIP(),
              NODE,
              namespace,
              pod.getMetadata().getName(),
              pod.getMetadata().getUid(),
              true));
    }
    if (withOthers) {
      for (int k = 0; k < OTHER_ENDPOINTS; k++) {
        String pod = name + "-other-" + k;
        endpoints.add(
            endpoint(
                "10.9." + (Math.abs((namespace + pod).hashCode()) % 250) + "." + (k + 1),
                "node-" + (k + 1),
                namespace,
                pod,
                namespace + "-" + pod,
                true));
      }
    }
    EndpointSliceBuilder builder =
        new EndpointSliceBuilder()
            .withNewMetadata()
            .withNamespace(namespace)
            .withName(name + "-" + suffix)
            .withResourceVersion("1")
            .withLabels(
                Map.of(
                    "kubernetes.io/service-name",
                    name,
                    ControllerSlices.MANAGED_BY_LABEL,
                    ControllerSlices.CONTROLLER,
                    "mesh-managed",
                    "true"))
            .endMetadata()
            .withAddressType("IPv4")
            .withEndpoints(endpoints);
    if (!ports.isEmpty()) {
      builder.withPorts(ports);
    }
    return builder.build();
  }

  /** One other node's endpoint turns not ready: a real change that moves none of our pods. */
  private static EndpointSlice sliceVersion2(EndpointSlice slice) {
    EndpointSlice copy =
        new EndpointSliceBuilder(slice)
            .editMetadata()
            .withResourceVersion("2")
            .endMetadata()
            .build();
    Endpoint last = copy.getEndpoints().get(copy.getEndpoints().size() - 1);
    last.getConditions().setReady(false);
    last.getConditions().setServing(false);
    return copy;
  }

  private static Endpoint endpoint(
      String ip, String node, String namespace, String pod, String uid, boolean ready) {
    return new EndpointBuilder()
        .withAddresses(ip)
        .withNodeName(node)
        .withTargetRef(
            new ObjectReferenceBuilder()
                .withKind("Pod")
                .withNamespace(namespace)
                .withName(pod)
                .withUid(uid)
                .build())
        .withNewConditions()
        .withReady(ready)
        .withServing(ready)
        .withTerminating(false)
        .endConditions()
        .build();
  }

  private static String app(int j) {
    return String.format("a-%02d", j);
  }

  private static String uid(String namespace, int j) {
    return "uid-" + namespace + "-" + j;
  }

  private static String podIp(String namespace, int j) {
    return "10.1." + Integer.parseInt(namespace.substring(3)) + "." + (j + 10);
  }
}
