package dev.routesync.sync;

import dev.routesync.table.ServiceKey;
import java.util.AbstractMap;
import java.util.Collections;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Services to recompute together, and why now.
 *
 * @param keys the dirty services, each once however many events touched it
 * @param waitNanos how long the oldest change in the batch waited for this flush
 * @param cause what triggered the flush
 * @param changedAt for each key, when its first change of this batch arrived ({@link
 *     Scheduler#nanoTime()} scale); may be missing for keys a relist added
 */
public record Batch(
    Set<ServiceKey> keys, long waitNanos, Cause cause, Map<ServiceKey, Long> changedAt) {

  public Batch {
    if (!(changedAt instanceof HandedOver)) {
      keys = Set.copyOf(keys);
      changedAt = Map.copyOf(changedAt);
    }
  }

  /**
   * A batch over {@code changedAt}'s keys that wraps the map instead of copying it (twice): the
   * caller hands it over and never touches it again. The coalescer does this once per flush, so a
   * batch of thousands of keys costs two small wrappers, not two rehashed copies.
   */
  static Batch handOver(Map<ServiceKey, Long> changedAt, long waitNanos, Cause cause) {
    HandedOver view = new HandedOver(changedAt);
    return new Batch(view.keySet(), waitNanos, cause, view);
  }

  /** A read-only view of a map nobody else holds any more; equal to any map of the same content. */
  private static final class HandedOver extends AbstractMap<ServiceKey, Long> {
    private final Map<ServiceKey, Long> map;
    private final Set<ServiceKey> keys;

    HandedOver(Map<ServiceKey, Long> map) {
      this.map = Collections.unmodifiableMap(map);
      this.keys = this.map.keySet();
    }

    @Override
    public Set<Entry<ServiceKey, Long>> entrySet() {
      return map.entrySet();
    }

    @Override
    public Set<ServiceKey> keySet() {
      return keys;
    }

    @Override
    public int size() {
      return map.size();
    }

    @Override
    public Long get(Object key) {
      return map.get(key);
    }

    @Override
    public boolean containsKey(Object key) {
      return map.containsKey(key);
    }
  }

  public Batch(Set<ServiceKey> keys, long waitNanos, Cause cause) {
    this(keys, waitNanos, cause, Map.of());
  }

  /** Why a batch was flushed; a metric label, so the names are stable. */
  public enum Cause {
    /** The first change after a quiet spell: published without waiting. */
    LEADING_EDGE,
    /** No further change arrived during the debounce period. */
    QUIET,
    /** The oldest change reached the max delay while changes kept coming. */
    MAX_DELAY,
    /** The batch reached the max size. */
    MAX_BATCH,
    /** A relist asked for the whole difference to be published as one version. */
    RELIST;

    /** The {@code cause} label on {@code routesync.batches}, e.g. {@code max_delay}. */
    public String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }
}
