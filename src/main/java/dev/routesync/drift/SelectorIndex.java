package dev.routesync.drift;

import dev.routesync.rules.ServiceSelection;
import io.fabric8.kubernetes.api.model.Service;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The Services that could select a pod, without looking at every Service: per namespace, each
 * controller-managed Service is filed under one pair of its selector ({@code key=value}, the
 * smallest in order). A Service selects a pod only if the pod carries every pair of its selector,
 * that one included, so the Services filed under the pod's own labels are all the candidates. A pod
 * event then costs the Services sharing a label with it, not the namespace's, let alone the
 * cluster's.
 *
 * <p>Threading: the sync context.
 */
final class SelectorIndex {

  // namespace -> key=value -> Services filed under it. A pair shares the selector's strings (a
  // "key=value" string was a new one per Service), and most pairs file one Service, so their sets
  // start small (a default HashSet's table alone is 80 bytes): at 40,000 Services, ~4 MiB less.
  private final Map<String, Map<Pair, Set<ServiceRef>>> byNamespace = new HashMap<>();
  private final Map<ServiceRef, Pair> filedUnder = new HashMap<>();

  private record Pair(String key, String value) {}

  /** Files {@code service} (or removes it, if the controller fills no endpoints for it). */
  void put(ServiceRef ref, Service service) {
    remove(ref);
    if (!ServiceSelection.isControllerManaged(service)) {
      return;
    }
    Map.Entry<String, String> first = new TreeMap<>(service.getSpec().getSelector()).firstEntry();
    Pair pair = new Pair(first.getKey(), first.getValue());
    byNamespace
        .computeIfAbsent(ref.namespace(), ns -> new HashMap<>())
        .computeIfAbsent(pair, p -> new HashSet<>(2))
        .add(ref);
    filedUnder.put(ref, pair);
  }

  void remove(ServiceRef ref) {
    Pair pair = filedUnder.remove(ref);
    if (pair == null) {
      return;
    }
    Map<Pair, Set<ServiceRef>> pairs = byNamespace.get(ref.namespace());
    Set<ServiceRef> refs = pairs.get(pair);
    refs.remove(ref);
    if (refs.isEmpty()) {
      pairs.remove(pair);
      if (pairs.isEmpty()) {
        byNamespace.remove(ref.namespace());
      }
    }
  }

  /** The Services of {@code namespace} that might select a pod with {@code labels}. */
  Set<ServiceRef> candidates(String namespace, Map<String, String> labels) {
    Map<Pair, Set<ServiceRef>> pairs = byNamespace.get(namespace);
    if (pairs == null || labels == null || labels.isEmpty()) {
      return Set.of();
    }
    Set<ServiceRef> candidates = new HashSet<>();
    for (Map.Entry<String, String> label : labels.entrySet()) {
      Set<ServiceRef> filed = pairs.get(new Pair(label.getKey(), label.getValue()));
      if (filed != null) {
        candidates.addAll(filed);
      }
    }
    return candidates;
  }

  void clear() {
    byNamespace.clear();
    filedUnder.clear();
  }
}
