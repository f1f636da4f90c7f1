package dev.routesync.sync;

import dev.routesync.table.ServiceKey;
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
    keys = Set.copyOf(keys);
    changedAt = Map.copyOf(changedAt);
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
