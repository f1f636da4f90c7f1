package dev.routesync.sidecars;

import dev.routesync.table.ServiceKey;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The trigger time of each Service's latest endpoint change, with the table version that published
 * it: what a stream looks up, per Service it sends, to know that the version it sends carries a
 * change whose {@code endpoints.kubernetes.io/last-change-trigger-time} is known.
 *
 * <p>Written by the sync stage (once per changed Service per publish, where the network programming
 * latency is measured: only changes made after the agent started, only endpoint changes), read by
 * streams on any event loop: a lookup is one hash probe and allocates nothing. Bounded: at most
 * {@link #MAX_ENTRIES} Services; past it, entries older than {@link #KEEP_MILLIS} go (no client is
 * waited for that long), and if that is not enough, all of them (some samples are then lost, the
 * memory is not).
 */
public final class TriggerLedger {

  static final int MAX_ENTRIES = 65_536;
  static final long KEEP_MILLIS = 10 * 60_000L;

  private record Entry(long version, long triggerMillis, long addedMillis) {}

  private final Map<ServiceKey, Entry> entries = new ConcurrentHashMap<>();
  private final LongSupplier wallMillis;
  private final int maxEntries;

  public TriggerLedger(LongSupplier wallMillis) {
    this(wallMillis, MAX_ENTRIES);
  }

  TriggerLedger(LongSupplier wallMillis, int maxEntries) {
    this.wallMillis = wallMillis;
    this.maxEntries = maxEntries;
  }

  /** {@code key}'s endpoints changed at {@code version}, triggered at {@code trigger}. */
  public void programmed(ServiceKey key, long version, Instant trigger) {
    long now = wallMillis.getAsLong();
    if (!entries.containsKey(key) && entries.size() >= maxEntries) {
      entries.values().removeIf(entry -> now - entry.addedMillis > KEEP_MILLIS);
      if (entries.size() >= maxEntries) {
        entries.clear();
      }
    }
    entries.put(key, new Entry(version, trigger.toEpochMilli(), now));
  }

  /**
   * The trigger time (epoch millis) of the change that gave {@code key} its {@code version}, or 0
   * when that version carries no known trigger time.
   */
  public long triggerMillis(ServiceKey key, long version) {
    Entry entry = entries.get(key);
    return entry != null && entry.version == version ? entry.triggerMillis : 0;
  }

  int size() {
    return entries.size();
  }
}
