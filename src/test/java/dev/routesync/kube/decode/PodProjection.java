package dev.routesync.kube.decode;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodIP;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What {@link PodReader} keeps of a Pod, taken from fabric8's decoding (for comparing models) or
 * from the document itself (for asking fabric8 about only the fields the reader reads).
 */
final class PodProjection {

  private PodProjection() {}

  /** fabric8's Pod with only the fields the reader keeps. */
  static Pod kept(Pod full) {
    if (full == null) {
      return null;
    }
    Pod pod = new Pod();
    pod.setApiVersion(full.getApiVersion());
    pod.setKind(full.getKind());
    pod.setMetadata(ModelsForTests.withoutLeftOuts(full.getMetadata()));
    PodSpec spec = full.getSpec();
    if (spec != null) {
      PodSpec kept = new PodSpec();
      kept.setNodeName(spec.getNodeName());
      kept.setContainers(each(spec.getContainers(), PodProjection::container));
      kept.setInitContainers(each(spec.getInitContainers(), PodProjection::container));
      pod.setSpec(kept);
    }
    PodStatus status = full.getStatus();
    if (status != null) {
      PodStatus kept = new PodStatus();
      kept.setPhase(status.getPhase());
      kept.setPodIP(status.getPodIP());
      kept.setConditions(each(status.getConditions(), PodProjection::condition));
      kept.setPodIPs(each(status.getPodIPs(), ip -> new PodIP(ip.getIp())));
      pod.setStatus(kept);
    }
    return pod;
  }

  /**
   * The JSON Pod {@code object} (a tree, changed in place) without the fields the reader skips, so
   * that a malformed value in one of them is not held against the fast path.
   */
  static void keepOnlyRead(ObjectNode object) {
    object.retain("apiVersion", "kind", "metadata", "spec", "status");
    if (object.get("metadata") instanceof ObjectNode meta) {
      meta.remove("managedFields");
    }
    if (object.get("spec") instanceof ObjectNode spec) {
      spec.retain("nodeName", "containers", "initContainers");
      containers(spec.get("containers"));
      containers(spec.get("initContainers"));
    }
    if (object.get("status") instanceof ObjectNode status) {
      status.retain("phase", "conditions", "podIP", "podIPs");
      elements(status.get("conditions"), condition -> condition.retain("type", "status"));
      elements(status.get("podIPs"), ip -> ip.retain("ip"));
    }
  }

  private static void containers(JsonNode containers) {
    elements(
        containers,
        container -> {
          container.retain("name", "restartPolicy", "ports");
          elements(
              container.get("ports"),
              port -> port.retain("name", "containerPort", "protocol", "hostPort", "hostIP"));
        });
  }

  private static void elements(JsonNode array, Consumer<ObjectNode> each) {
    if (array != null && array.isArray()) {
      for (JsonNode element : array) {
        if (element instanceof ObjectNode object) {
          each.accept(object);
        }
      }
    }
  }

  private static Container container(Container full) {
    Container container = new Container();
    container.setName(full.getName());
    container.setRestartPolicy(full.getRestartPolicy());
    container.setPorts(each(full.getPorts(), PodProjection::port));
    return container;
  }

  private static ContainerPort port(ContainerPort full) {
    return new ContainerPort(
        full.getContainerPort(),
        full.getHostIP(),
        full.getHostPort(),
        full.getName(),
        full.getProtocol());
  }

  private static PodCondition condition(PodCondition full) {
    PodCondition condition = new PodCondition();
    condition.setType(full.getType());
    condition.setStatus(full.getStatus());
    return condition;
  }

  private static <T> List<T> each(List<T> values, Function<T, T> keep) {
    if (values == null) {
      return null;
    }
    // Data binding makes mutable lists, with nulls kept: so does the reader.
    List<T> kept = new ArrayList<>(values.size());
    for (T value : values) {
      kept.add(value == null ? null : keep.apply(value));
    }
    return kept;
  }
}
