package dev.routesync.kube;

import dev.routesync.kube.translate.Skip;
import dev.routesync.table.ServiceKey;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which skips have been counted, per Service. A Service is recomputed whenever any of its objects
 * changes (or a relist swaps in), and each recompute finds the same skips again in an unchanged
 * malformed object: only the first translation of each object version counts and logs them.
 *
 * <p>A skip is the same as one counted when it is equal to it: the same reason, object, version and
 * detail. An object's own skips are equal while its version stands. Two different skips may name
 * one object (a Service's own skip, and one that the merge of its objects makes, without a
 * version): keyed by object alone, the second would be taken for counted, or the two would replace
 * each other's version and count again on every recompute.
 *
 * <p>Memory: one entry per skip in a Service's latest translation. Each recompute replaces the
 * Service's entries with the objects that have skips now, so an object that is fixed, moved to
 * another Service or deleted (each of which recomputes the Service) is forgotten, and a Service
 * left without objects is forgotten whole. Never more entries than the skips the cache's
 * translations hold (the same instances).
 *
 * <p>Threading: the sync context only, like the reconciler that drives it.
 */
final class CountedSkips {

  // Service -> the skips of its latest translation, all counted.
  private final Map<ServiceKey, Set<Skip>> counted = new HashMap<>();

  /**
   * The skips of a fresh translation of {@code key} that were not counted before, in their order;
   * the rest come from object versions already counted. Remembers this translation's versions.
   */
  List<Skip> firstSeen(ServiceKey key, List<Skip> skips) {
    Set<Skip> before = counted.getOrDefault(key, Set.of());
    if (skips.isEmpty()) {
      counted.remove(key);
      return List.of();
    }
    Set<Skip> now = new HashSet<>();
    List<Skip> fresh = new ArrayList<>();
    for (Skip skip : skips) {
      now.add(skip);
      // Equal skips in one translation (two endpoints without an address) each count, once.
      if (!before.contains(skip)) {
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

  /** Skips remembered, over all Services. */
  int size() {
    int size = 0;
    for (Set<Skip> objects : counted.values()) {
      size += objects.size();
    }
    return size;
  }
}
