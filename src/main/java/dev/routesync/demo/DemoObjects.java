package dev.routesync.demo;

import dev.routesync.rules.ControllerSlices;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPort;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPortBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Builders for the Kubernetes objects the demo puts into its mock API server. Demo-only: the tests
 * have their own fixtures ({@code testing.Slices} in the test tree).
 */
final class DemoObjects {

  /** The opt-in label the agent watches by default. */
  static final String MESH_LABEL = "mesh-managed";

  private DemoObjects() {}

  /** One endpoint of a slice: a pod's IP and conditions. */
  record Pod(String name, String ip, String node, String zone, Conditions conditions) {

    static Pod ready(String name, String ip) {
      return new Pod(name, ip, "node-a", "zone-a", Conditions.READY);
    }

    Pod with(Conditions newConditions) {
      return new Pod(name, ip, node, zone, newConditions);
    }
  }

  /** The three endpoint conditions as the EndpointSlice controller sets them. */
  enum Conditions {
    READY(true, true, false),
    NOT_READY(false, false, false),
    TERMINATING_SERVING(false, true, true),
    TERMINATING(false, false, true);

    final boolean ready;
    final boolean serving;
    final boolean terminating;

    Conditions(boolean ready, boolean serving, boolean terminating) {
      this.ready = ready;
      this.serving = serving;
      this.terminating = terminating;
    }
  }

  /** An IPv4 slice of {@code service} with one TCP port named {@code http}. */
  static EndpointSlice slice(
      String namespace,
      String name,
      String service,
      boolean meshManaged,
      int port,
      List<Pod> pods) {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put("kubernetes.io/service-name", service);
    if (meshManaged) {
      labels.put(MESH_LABEL, "true");
    }
    EndpointPort endpointPort =
        new EndpointPortBuilder().withName("http").withPort(port).withProtocol("TCP").build();
    return new EndpointSliceBuilder()
        .withNewMetadata()
        .withNamespace(namespace)
        .withName(name)
        .withLabels(labels)
        // As the EndpointSlice controller sets it: when the change behind this version happened.
        .addToAnnotations(
            "endpoints.kubernetes.io/last-change-trigger-time", java.time.Instant.now().toString())
        .endMetadata()
        .withAddressType("IPv4")
        .withPorts(endpointPort)
        .withEndpoints(pods.stream().map(DemoObjects::endpoint).toList())
        .build();
  }

  /**
   * As {@link #slice}, with each endpoint hinted for its own zone, as the EndpointSlice controller
   * writes a Service with {@code trafficDistribution: PreferClose} when its zones are balanced.
   */
  static EndpointSlice zonedSlice(
      String namespace, String name, String service, int port, List<Pod> pods) {
    EndpointSlice slice = slice(namespace, name, service, true, port, pods);
    for (Endpoint endpoint : slice.getEndpoints()) {
      endpoint.setHints(
          new io.fabric8.kubernetes.api.model.discovery.v1.EndpointHintsBuilder()
              .addNewForZone()
              .withName(endpoint.getZone())
              .endForZone()
              .build());
    }
    return slice;
  }

  static Endpoint endpoint(Pod pod) {
    return new EndpointBuilder()
        .withAddresses(pod.ip())
        .withNodeName(pod.node())
        .withZone(pod.zone())
        .withTargetRef(
            new ObjectReferenceBuilder()
                .withKind("Pod")
                .withName(pod.name())
                .withNamespace("")
                .build())
        .withNewConditions()
        .withReady(pod.conditions().ready)
        .withServing(pod.conditions().serving)
        .withTerminating(pod.conditions().terminating)
        .endConditions()
        .build();
  }

  /**
   * A Running pod on {@code node} of Service {@code app}, its one container declaring {@code
   * portName} (8080), Ready: what the drift detector reads.
   */
  static io.fabric8.kubernetes.api.model.Pod runningPod(
      String namespace, String app, Pod pod, String portName) {
    return new io.fabric8.kubernetes.api.model.PodBuilder()
        .withNewMetadata()
        .withNamespace(namespace)
        .withName(pod.name())
        .withLabels(Map.of("app", app))
        .endMetadata()
        .withNewSpec()
        .withNodeName(pod.node())
        .addNewContainer()
        .withName(app)
        .withImage(app + ":demo")
        .addNewPort()
        .withName(portName)
        .withContainerPort(8080)
        .endPort()
        .endContainer()
        .endSpec()
        .withNewStatus()
        .withPhase("Running")
        .withPodIP(pod.ip())
        .addNewCondition()
        .withType("Ready")
        .withStatus("True")
        .endCondition()
        .endStatus()
        .build();
  }

  /**
   * As {@link #slice}, as the EndpointSlice controller writes it: labelled as its own, each
   * endpoint naming its running pod by uid (what the drift detector matches), and no ports when
   * {@code port} is null (no pod declares the Service's named target port).
   */
  static EndpointSlice controllerSlice(
      String name, String service, Integer port, List<io.fabric8.kubernetes.api.model.Pod> pods) {
    String namespace = pods.get(0).getMetadata().getNamespace();
    List<Pod> endpoints =
        pods.stream()
            .map(p -> Pod.ready(p.getMetadata().getName(), p.getStatus().getPodIP()))
            .toList();
    EndpointSlice slice = slice(namespace, name, service, true, port == null ? 0 : port, endpoints);
    slice
        .getMetadata()
        .getLabels()
        .put(ControllerSlices.MANAGED_BY_LABEL, ControllerSlices.CONTROLLER);
    if (port == null) {
      slice.setPorts(null);
    }
    for (int i = 0; i < pods.size(); i++) {
      ObjectReference pod = slice.getEndpoints().get(i).getTargetRef();
      pod.setNamespace(namespace);
      pod.setUid(pods.get(i).getMetadata().getUid());
    }
    return slice;
  }

  /** A ClusterIP Service fronting pods on a named target port. */
  static Service service(String namespace, String name, boolean meshManaged) {
    Map<String, String> labels = meshManaged ? Map.of(MESH_LABEL, "true") : Map.of();
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace(namespace)
        .withName(name)
        .withLabels(labels)
        .endMetadata()
        .withNewSpec()
        .withSelector(Map.of("app", name))
        .addNewPort()
        .withName("http")
        .withPort(80)
        .withNewTargetPort("http")
        .endPort()
        .endSpec()
        .build();
  }
}
