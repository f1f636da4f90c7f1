package dev.routesync.xds;

import dev.routesync.table.RoutingTable;
import dev.routesync.table.ServiceKey;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The names one stream subscribed for one type, both protocols' common part: each name's parsed
 * target, the names by the Service they point at (so a table change finds its names without a
 * scan), the names not answered yet, and the table version up to which every name was compared with
 * what the client has. Owned by the stream's event loop: no locks.
 */
final class SubscribedNames {

  private final Set<String> names = new LinkedHashSet<>();
  private final Map<String, Optional<XdsTarget>> targets = new HashMap<>();
  private final Map<ServiceKey, Set<String>> byService = new HashMap<>();
  private final Set<String> unsent = new LinkedHashSet<>();
  private long checkedAt = -1;
  private int refusedSinceTaken;

  /** Follows {@code name}; false when it already was. */
  boolean add(String name) {
    if (!names.add(name)) {
      return false;
    }
    if (XdsNames.isClusterset(name)) {
      refusedSinceTaken++;
    }
    Optional<XdsTarget> target = XdsNames.parse(name);
    targets.put(name, target);
    target.ifPresent(
        t -> byService.computeIfAbsent(t.service(), k -> new LinkedHashSet<>()).add(name));
    return true;
  }

  /** Stops following {@code name} (unknown names are ignored). */
  void forget(String name) {
    names.remove(name);
    unsent.remove(name);
    Optional<XdsTarget> target = targets.remove(name);
    if (target != null && target.isPresent()) {
      Set<String> ofService = byService.get(target.get().service());
      if (ofService != null) {
        ofService.remove(name);
        if (ofService.isEmpty()) {
          byService.remove(target.get().service());
        }
      }
    }
  }

  Set<String> names() {
    return names;
  }

  /**
   * How many refused names ({@link XdsNames#isClusterset}) were subscribed since the last call:
   * each is counted once per subscription, not once per response.
   */
  int takeRefused() {
    int refused = refusedSinceTaken;
    refusedSinceTaken = 0;
    return refused;
  }

  boolean contains(String name) {
    return names.contains(name);
  }

  int size() {
    return names.size();
  }

  /** Names to answer whatever changed in the table; a flush that answers one removes it. */
  Set<String> unsent() {
    return unsent;
  }

  Optional<XdsTarget> target(String name) {
    Optional<XdsTarget> target = targets.get(name);
    return target == null ? XdsNames.parse(name) : target;
  }

  /** The names of {@code service} followed here (none: an empty set). */
  Set<String> namesOf(ServiceKey service) {
    return byService.getOrDefault(service, Set.of());
  }

  /**
   * The names whose resource may differ from what the client has: those not answered yet, and those
   * of the Services changed since the last call (every name when that is older than the table's
   * delta log). Marks every name compared up to {@code current}.
   */
  Set<String> changedSinceChecked(RoutingTable current) {
    Set<String> candidates = new LinkedHashSet<>(unsent);
    Optional<Set<ServiceKey>> changed =
        checkedAt == current.version()
            ? Optional.of(Set.of())
            : checkedAt < 0 ? Optional.empty() : current.changedSince(checkedAt);
    if (changed.isPresent()) {
      for (ServiceKey key : changed.get()) {
        candidates.addAll(namesOf(key));
      }
    } else {
      candidates.addAll(names);
    }
    checkedAt = current.version();
    return candidates;
  }
}
