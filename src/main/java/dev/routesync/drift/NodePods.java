package dev.routesync.drift;

import static dev.routesync.drift.ObjectKeys.keyOf;
import static dev.routesync.drift.ObjectKeys.namespaceOf;
import static dev.routesync.drift.ObjectKeys.sameVersion;

import dev.routesync.rules.PodStates;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * This node's pods, as the node-scoped Pods watch delivers them, keyed {@code "namespace/name"} and
 * grouped by namespace (a Service change rescans only its namespace's pods). Pods of other nodes
 * are ignored, even if a watch delivers them; a pod that moves away, goes, or is replaced by a new
 * pod of the same name (a StatefulSet's) is handed to {@code gone}, so its drifts and memberships
 * end with it.
 *
 * <p>Threading: the sync context.
 */
final class NodePods {

  private final String nodeName;
  private final PendingWork work;
  private final Consumer<PodState> gone;
  private final Map<String, PodState> pods = new HashMap<>();
  private final Map<String, Set<String>> byNamespace = new HashMap<>();

  NodePods(String nodeName, PendingWork work, Consumer<PodState> gone) {
    this.nodeName = nodeName;
    this.work = work;
    this.gone = gone;
  }

  /** The pod's state, or {@code null} if it is not (or no longer) a pod of this node. */
  PodState get(String key) {
    return pods.get(key);
  }

  /** The keys of this node's pods in {@code namespace}. */
  Set<String> inNamespace(String namespace) {
    return byNamespace.getOrDefault(namespace, Set.of());
  }

  int size() {
    return pods.size();
  }

  void upserted(Pod pod, long at) {
    String key = keyOf(pod);
    if (key == null) {
      return;
    }
    if (!onThisNode(pod)) {
      forget(key); // moved, or a watch that does not filter by node: never ours
      return;
    }
    PodState state = pods.get(key);
    if (state != null && !state.uid.equals(PodStates.uidOf(pod))) {
      forget(key); // the same name, a new pod (a StatefulSet's): its history is not this one's
      state = null;
    }
    if (state == null) {
      state = new PodState(key, pod, at);
      pods.put(key, state);
      byNamespace.computeIfAbsent(namespaceOf(pod), ns -> new HashSet<>()).add(key);
    }
    state.seen(pod, at);
    work.podsChanged.add(key);
    work.scheduleRound();
  }

  void deleted(Pod pod) {
    String key = keyOf(pod);
    if (key != null) {
      forget(key);
      work.scheduleRound();
    }
  }

  /** A whole list: pods not in it are gone; only new or changed ones count as changes. */
  void listed(Collection<Pod> listed, long at) {
    Set<String> keys = new HashSet<>();
    for (Pod pod : listed) {
      String key = keyOf(pod);
      if (key != null && onThisNode(pod)) {
        keys.add(key);
      }
    }
    for (String known : List.copyOf(pods.keySet())) {
      if (!keys.contains(known)) {
        forget(known);
      }
    }
    for (Pod pod : listed) {
      PodState known = pods.get(keyOf(pod));
      if (known == null || !sameVersion(known.pod, pod)) { // a relist re-delivers the unchanged
        upserted(pod, at);
      }
    }
  }

  private void forget(String key) {
    PodState state = pods.remove(key);
    if (state == null) {
      return;
    }
    Set<String> inNamespace = byNamespace.get(state.namespace());
    if (inNamespace != null) {
      inNamespace.remove(key);
      if (inNamespace.isEmpty()) {
        byNamespace.remove(state.namespace());
      }
    }
    gone.accept(state);
  }

  private boolean onThisNode(Pod pod) {
    return pod.getSpec() != null && nodeName.equals(pod.getSpec().getNodeName());
  }
}
