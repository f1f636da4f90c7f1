package dev.routesync.kube;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.Map;
import java.util.Optional;

/**
 * This node's topology labels ({@value #ZONE_LABEL}, {@value #REGION_LABEL}), read with one GET of
 * its Node object, as kube-proxy reads them (RBAC: {@code get} on {@code nodes}). Used by the agent
 * (its topology decisions) and by {@code routesync bootstrap} (the xDS locality).
 */
public final class NodeLabels {

  /** The label the kubelet or the cloud provider sets on every node of a zoned cluster. */
  public static final String ZONE_LABEL = "topology.kubernetes.io/zone";

  /** The region label, beside the zone. */
  public static final String REGION_LABEL = "topology.kubernetes.io/region";

  /**
   * What the GET found.
   *
   * @param found whether the Node was read (then {@code zone} and {@code region} are its labels)
   * @param zone the zone label's value, trimmed, or empty when absent or blank
   * @param region the region label's value, trimmed, or empty
   * @param failure the API's refusal or the transport's error when the Node was not read
   */
  public record Answer(
      boolean found,
      Optional<String> zone,
      Optional<String> region,
      Optional<KubernetesClientException> failure) {}

  private NodeLabels() {}

  /** One GET of node {@code nodeName}; the client's own timeouts bound it. */
  public static Answer read(KubernetesClient client, String nodeName) {
    Node node;
    try {
      node = client.nodes().withName(nodeName).get();
    } catch (KubernetesClientException e) {
      return new Answer(false, Optional.empty(), Optional.empty(), Optional.of(e));
    }
    if (node == null) {
      return new Answer(false, Optional.empty(), Optional.empty(), Optional.empty());
    }
    Map<String, String> labels = node.getMetadata() == null ? null : node.getMetadata().getLabels();
    return new Answer(
        true, label(labels, ZONE_LABEL), label(labels, REGION_LABEL), Optional.empty());
  }

  private static Optional<String> label(Map<String, String> labels, String name) {
    String value = labels == null ? null : labels.get(name);
    return value == null || value.isBlank() ? Optional.empty() : Optional.of(value.trim());
  }
}
