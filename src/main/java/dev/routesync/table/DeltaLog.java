package dev.routesync.table;

import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.pcollections.PSortedMap;
import org.pcollections.TreePMap;

/**
 * A bounded, persistent log of the most recent {@link TableDelta}s, so a watcher that reconnects
 * with a recent version receives only what it missed. Appending is O(log capacity) and shares
 * structure with the previous log, so every table version keeps its own log for free.
 */
public final class DeltaLog {

  private final int capacity;
  private final PSortedMap<Long, TableDelta> deltas;

  private DeltaLog(int capacity, PSortedMap<Long, TableDelta> deltas) {
    this.capacity = capacity;
    this.deltas = deltas;
  }

  static DeltaLog empty(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("delta log capacity must be >= 1, got " + capacity);
    }
    return new DeltaLog(capacity, TreePMap.empty());
  }

  DeltaLog append(TableDelta delta) {
    PSortedMap<Long, TableDelta> next = deltas.plus(delta.version(), delta);
    if (next.size() > capacity) {
      next = next.minus(next.firstKey());
    }
    return new DeltaLog(capacity, next);
  }

  /** The oldest version a watcher may hold and still be served a delta, or -1 when empty. */
  /** How many recent versions' deltas are kept. */
  int capacity() {
    return capacity;
  }

  public long oldestResumableVersion() {
    return deltas.isEmpty() ? -1 : deltas.firstKey() - 1;
  }

  int size() {
    return deltas.size();
  }

  /**
   * The services that changed after {@code version} up to {@code currentVersion}, or empty when
   * {@code version} is older than the log remembers (the caller must send a full snapshot).
   */
  Optional<Set<ServiceKey>> changedSince(long version, long currentVersion) {
    if (version == currentVersion) {
      return Optional.of(Set.of());
    }
    if (version > currentVersion || deltas.isEmpty() || version < oldestResumableVersion()) {
      return Optional.empty();
    }
    Set<ServiceKey> changed = new TreeSet<>();
    for (TableDelta delta : deltas.tailMap(version, false).values()) {
      changed.addAll(delta.upserted());
      changed.addAll(delta.removed());
    }
    return Optional.of(changed);
  }
}
