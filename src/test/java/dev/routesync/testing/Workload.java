package dev.routesync.testing;

import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32;

/**
 * A Deployment as far as its Pods go: a namespace, a name and a Pod template (labels and spec).
 * {@link #templateHash()} stands for the {@code pod-template-hash} label a Deployment puts on its
 * ReplicaSet's Pods, so a new template is a new ReplicaSet.
 */
public record Workload(String namespace, String name, Map<String, String> labels, PodSpec spec) {

  public Workload {
    labels = Map.copyOf(labels);
  }

  /** The same Deployment with another Pod spec (a new ReplicaSet on rollout). */
  public Workload withSpec(PodSpec newSpec) {
    return new Workload(namespace, name, labels, newSpec);
  }

  /** A short, stable hash of the template, in the style of {@code pod-template-hash}. */
  public String templateHash() {
    CRC32 crc = new CRC32();
    crc.update(
        (Serialization.asJson(new TreeMap<>(labels)) + Serialization.asJson(spec))
            .getBytes(StandardCharsets.UTF_8));
    return Long.toString(crc.getValue(), 36);
  }

  /** The labels of this template's Pods: the template's own plus {@code pod-template-hash}. */
  public Map<String, String> podLabels() {
    Map<String, String> podLabels = new LinkedHashMap<>(labels);
    podLabels.put("pod-template-hash", templateHash());
    return podLabels;
  }
}
