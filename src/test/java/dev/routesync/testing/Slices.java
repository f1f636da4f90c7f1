package dev.routesync.testing;

import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPortBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * EndpointSlices as the EndpointSlice controller writes them, for tests (and, through the test-jar,
 * the end-to-end benchmark) to put into the mock API server or hand to the translator. The demo has
 * its own builder ({@code demo.DemoObjects}), so that no demo class has to be public for the tests'
 * sake, and the tests' fixtures do not change when the demo's scenery does.
 */
public final class Slices {

  /** The opt-in label the agent watches by default ({@code --label-selector mesh-managed=true}). */
  public static final String MESH_LABEL = "mesh-managed";

  private Slices() {}

  /** One endpoint of a slice: a pod's IP, where it runs and its conditions. */
  public record Pod(String name, String ip, String node, String zone, Conditions conditions) {

    /** A ready pod on node-a in zone-a. */
    public static Pod ready(String name, String ip) {
      return new Pod(name, ip, "node-a", "zone-a", Conditions.READY);
    }

    public Pod with(Conditions newConditions) {
      return new Pod(name, ip, node, zone, newConditions);
    }
  }

  /** The three endpoint conditions as the EndpointSlice controller sets them. */
  public enum Conditions {
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

  /**
   * An IPv4 slice of {@code service} with one TCP port named {@code http}, labelled {@link
   * #MESH_LABEL} when {@code meshManaged}, and a last-change trigger time of now.
   */
  public static EndpointSlice slice(
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
    return new EndpointSliceBuilder()
        .withNewMetadata()
        .withNamespace(namespace)
        .withName(name)
        .withLabels(labels)
        .addToAnnotations(
            "endpoints.kubernetes.io/last-change-trigger-time", Instant.now().toString())
        .endMetadata()
        .withAddressType("IPv4")
        .withPorts(
            new EndpointPortBuilder().withName("http").withPort(port).withProtocol("TCP").build())
        .withEndpoints(pods.stream().map(Slices::endpoint).toList())
        .build();
  }

  /**
   * A slice as the EndpointSlice controller writes it for pods that resolve none of the Service's
   * ports (a renamed named {@code targetPort}, seed 002): every pod listed, ready, and {@code
   * ports: null}.
   */
  public static EndpointSlice portless(
      String namespace, String name, String service, List<Pod> pods) {
    EndpointSlice slice = slice(namespace, name, service, true, 8080, pods);
    slice.setPorts(null);
    return slice;
  }

  private static Endpoint endpoint(Pod pod) {
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
}
