package dev.routesync.kube;

import dev.routesync.kube.translate.Skip;
import dev.routesync.table.ServiceKey;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Which object versions' skips have been counted, per Service. A Service is recomputed whenever any
 * of its objects changes (or a relist swaps in), and each recompute finds the same skips again in
 * an unchanged malformed object: only the first translation of each object version counts and logs
 * them.
 *
 * <p>Memory: one entry per malformed object in a Service's latest translation. Each recompute
 * replaces the Service's entries with the objects that have skips now, so an object that is fixed,
 * moved to another Service or deleted (each of which recomputes the Service) is forgotten, and a
 * Service left without objects is forgotten whole. Never more entries than malformed objects in the
 * cache.
 *
 * <p>Threading: the sync context only, like the reconciler that drives it.
 */
final class CountedSkips {

  // Service -> (object -> resourceVersion whose skips were counted). Versions may be null.
  private final Map<ServiceKey, Map<String, String>> counted = new HashMap<>();

  /**
   * The skips of a fresh translation of {@code key} that were not counted before, in their order;
   * the rest come from object versions already counted. Remembers this translation's versions.
   */
  List<Skip> firstSeen(ServiceKey key, List<Skip> skips) {
    Map<String, String> before = counted.getOrDefault(key, Map.of());
    if (skips.isEmpty()) {
      counted.remove(key);
      return List.of();
    }
    Map<String, String> now = new HashMap<>();
    List<Skip> fresh = new ArrayList<>();
    for (Skip skip : skips) {
      now.put(skip.object(), skip.resourceVersion());
      boolean seen =
          before.containsKey(skip.object())
              && Objects.equals(before.get(skip.object()), skip.resourceVersion());
      if (!seen) {
        fresh.add(skip);
      }
    }
    counted.put(key, now);
    return fresh;
  }

  /** The Service has no objects left. */
  void forget(ServiceKey key) {
    counted.remove(key);
  }

  /** Object versions remembered, over all Services. */
  int size() {
    int size = 0;
    for (Map<String, String> objects : counted.values()) {
      size += objects.size();
    }
    return size;
  }
}
