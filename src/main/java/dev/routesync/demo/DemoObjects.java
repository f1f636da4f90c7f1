package dev.routesync.demo;

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
