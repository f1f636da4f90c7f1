package dev.routesync.serve;

import java.lang.ref.SoftReference;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * The latest all-namespaces Watch snapshot, assembled once and shared by every stream that asks for
 * it at the same table version and staleness: when a node's sidecars reconnect together they all
 * ask for the same message, and it is built once instead of once per stream.
 *
 * <p>Held softly: the collector may take it back before the heap runs short, and the next stream
 * assembles it again. Only the newest is kept, so it never holds more than one snapshot.
 *
 * <p>Kept as bytes, which nothing writes to: each stream wraps them in a buffer of its own.
 *
 * <p>Threading: any event loop. Two streams that miss at once both assemble (equal bytes; the last
 * one kept wins): at most one per event loop, for one version.
 */
final class SharedSnapshots {

  /** A snapshot's synced_at may be this much older than the freshness says before it is rebuilt. */
  static final long MAX_SYNCED_AT_LAG_MILLIS = 1_000;

  private record Kept(
      long version, boolean stale, long syncedAtMillis, SoftReference<byte[]> bytes) {}

  private final AtomicReference<Kept> latest = new AtomicReference<>();

  /**
   * The snapshot of every namespace at {@code version}: the kept one when it matches, else {@code
   * assemble}'s, kept for the next stream. {@code syncedAtMillis} is the freshness's (0 when never
   * heard): a kept snapshot whose own is within {@link #MAX_SYNCED_AT_LAG_MILLIS} of it still
   * serves, since synced_at moves with every watch event, also those that change no version.
   */
  byte[] snapshot(long version, boolean stale, long syncedAtMillis, Supplier<byte[]> assemble) {
    Kept kept = latest.get();
    if (kept != null
        && kept.version() == version
        && kept.stale() == stale
        && syncedAtMillis - kept.syncedAtMillis() <= MAX_SYNCED_AT_LAG_MILLIS) {
      byte[] bytes = kept.bytes().get();
      if (bytes != null) {
        return bytes;
      }
    }
    byte[] bytes = assemble.get();
    latest.set(new Kept(version, stale, syncedAtMillis, new SoftReference<>(bytes)));
    return bytes;
  }
}
