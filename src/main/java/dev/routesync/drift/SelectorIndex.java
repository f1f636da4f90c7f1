package dev.routesync.drift;

import dev.routesync.rules.ServiceSelection;
import io.fabric8.kubernetes.api.model.Service;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The Services that could select a pod, without looking at every Service: per namespace, each
 * controller-managed Service is filed under one pair of its selector ({@code key=value}, the
 * smallest in order). A Service selects a pod only if the pod carries every pair of its selector,
 * that one included, so the Services filed under the pod's own labels are all the candidates. A pod
 * event then costs the Services sharing a label with it, not the namespace's, let alone the
 * cluster's.
 *
 * <p>Where a Service is filed follows from its selector alone ({@link #pairOf}), so the index keeps
 * no Service-to-pair map: the caller passes the Service as filed when it changes or goes.
 *
 * <p>Threading: the sync context.
 */
final class SelectorIndex {

  // namespace -> key=value -> the Service filed under it (a ServiceRef), or, when several are, a
  // Set of them. Most pairs file one Service: a set per pair (its HashSet, HashMap, table and
  // node, ~120 bytes) was ~4.6 MiB at 40,000 Services. A pair shares the selector's strings.
  private final Map<String, Map<Pair, Object>> byNamespace = new HashMap<>();

  private record Pair(String key, String value) {}

  /**
   * Files {@code service} as {@code ref}, first unfiling {@code before} (its last version filed, or
   * null); a Service the controller fills no endpoints for is not filed.
   */
  void put(ServiceRef ref, Service before, Service service) {
    remove(ref, before);
    Pair pair = pairOf(service);
    if (pair == null) {
      return;
    }
    byNamespace
        .computeIfAbsent(ref.namespace(), ns -> new HashMap<>())
        .merge(pair, ref, SelectorIndex::withRef);
  }

  /** Unfiles {@code ref}, filed as {@code service} (nothing if that was never filed, or null). */
  void remove(ServiceRef ref, Service service) {
    Pair pair = pairOf(service);
    Map<Pair, Object> pairs = pair == null ? null : byNamespace.get(ref.namespace());
    if (pairs == null) {
      return;
    }
    pairs.computeIfPresent(pair, (p, filed) -> withoutRef(filed, ref));
    if (pairs.isEmpty()) {
      byNamespace.remove(ref.namespace());
    }
  }

  /** The Services of {@code namespace} that might select a pod with {@code labels}. */
  Set<ServiceRef> candidates(String namespace, Map<String, String> labels) {
    Map<Pair, Object> pairs = byNamespace.get(namespace);
    if (pairs == null || labels == null || labels.isEmpty()) {
      return Set.of();
    }
    Set<ServiceRef> candidates = new HashSet<>();
    for (Map.Entry<String, String> label : labels.entrySet()) {
      Object filed = pairs.get(new Pair(label.getKey(), label.getValue()));
      if (filed instanceof ServiceRef ref) {
        candidates.add(ref);
      } else if (filed != null) {
        candidates.addAll(refs(filed));
      }
    }
    return candidates;
  }

  void clear() {
    byNamespace.clear();
  }

  /** Where {@code service} is filed: the smallest pair of its selector, or null if it is not. */
  private static Pair pairOf(Service service) {
    if (service == null || !ServiceSelection.isControllerManaged(service)) {
      return null;
    }
    Map.Entry<String, String> smallest = null;
    for (Map.Entry<String, String> entry : service.getSpec().getSelector().entrySet()) {
      if (smallest == null || entry.getKey().compareTo(smallest.getKey()) < 0) {
        smallest = entry;
      }
    }
    return new Pair(smallest.getKey(), smallest.getValue());
  }

  private static Object withRef(Object filed, Object ref) {
    if (filed.equals(ref)) {
      return filed;
    }
    Set<ServiceRef> refs =
        filed instanceof ServiceRef one ? new HashSet<>(Set.of(one)) : refs(filed);
    refs.add((ServiceRef) ref);
    return refs;
  }

  // Null (nothing left filed) removes the pair; one left goes back to being held alone.
  private static Object withoutRef(Object filed, ServiceRef ref) {
    if (filed instanceof ServiceRef one) {
      return one.equals(ref) ? null : one;
    }
    Set<ServiceRef> refs = refs(filed);
    refs.remove(ref);
    return refs.size() == 1 ? refs.iterator().next() : refs;
  }

  @SuppressWarnings("unchecked")
  private static Set<ServiceRef> refs(Object filed) {
    return (Set<ServiceRef>) filed;
  }
}
