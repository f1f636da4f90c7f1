package dev.routesync.xds;

import com.google.protobuf.Any;
import dev.routesync.table.RoutingTable;
import dev.routesync.table.ServiceEndpoints;
import dev.routesync.table.ServiceKey;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Encoded {@code ClusterLoadAssignment}s, one per (Service, cluster name) at the Service's version,
 * shared by every stream: a change to one Service is encoded once, however many streams follow it,
 * and each stream's response copies the bytes rather than encoding them again.
 *
 * <p>Bounded by the table, not by clients: only names whose port selects something on a Service
 * that exists are kept (at most a few spellings per declared port), and a Service's entries go when
 * it leaves the table. Names that select nothing are cheap (an empty assignment) and not kept.
 *
 * <p>Threading: read on every stream's event loop, evicted on the table writer's thread; two
 * streams that miss at once both encode, and the last write wins with equal bytes.
 */
final class AssignmentCache {

  private record Encoded(long version, Any assignment) {}

  private final Map<ServiceKey, Map<String, Encoded>> byService = new ConcurrentHashMap<>();
  private volatile long seenVersion = -1;

  /** The assignment for cluster {@code name} ({@code target}, parsed) from {@code current}. */
  Any assignment(String name, Optional<XdsTarget> target, RoutingTable current) {
    if (target.isEmpty()) {
      return Any.pack(XdsResources.assignment(name, target, Optional.empty()));
    }
    ServiceKey key = target.get().service();
    Optional<ServiceEndpoints> service = current.get(key);
    if (service.isEmpty() || PortSelection.of(service.get(), target.get().port()).isEmpty()) {
      return Any.pack(XdsResources.assignment(name, target, service));
    }
    long version = service.get().version();
    Map<String, Encoded> names = byService.computeIfAbsent(key, k -> new ConcurrentHashMap<>());
    Encoded cached = names.get(name);
    if (cached != null && cached.version() == version) {
      return cached.assignment();
    }
    Any encoded = Any.pack(XdsResources.assignment(name, target, service));
    names.put(name, new Encoded(version, encoded));
    return encoded;
  }

  /** Drops the entries of Services {@code table} no longer has. The table writer's thread. */
  void published(RoutingTable table) {
    long since = seenVersion;
    seenVersion = table.version();
    Optional<Set<ServiceKey>> changed = since < 0 ? Optional.empty() : table.changedSince(since);
    if (changed.isEmpty()) {
      byService.keySet().removeIf(key -> table.get(key).isEmpty());
      return;
    }
    for (ServiceKey key : changed.get()) {
      if (table.get(key).isEmpty()) {
        byService.remove(key);
      }
    }
  }

  /** Cached assignments, for tests. */
  int size() {
    return byService.values().stream().mapToInt(Map::size).sum();
  }
}
