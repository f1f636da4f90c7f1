package dev.routesync.table;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * How fresh the served table is, said honestly: when the agent last heard from the API server, and
 * whether the table may be out of date. A stale table is still served (never dropped for being
 * stale): this only says so.
 *
 * <p>Stale means: not yet confirmed by a list (a table restored from the state file, or nothing at
 * all yet), or disconnected from the API server for longer than {@code --relist-after}, after which
 * the agent itself no longer trusts its watch to have replayed every change.
 *
 * <p>Threading: {@link #heard} is called from any thread (fabric8's, the sync context); the readers
 * from any thread. Nothing here blocks.
 */
public final class Freshness implements FreshnessView {

  private final TableTrust trust;
  private final LongSupplier disconnectedNanos;
  private final long staleAfterNanos;
  // Epoch microseconds of the last list or watch event, or 0 when none yet; only grows.
  private volatile long syncedAtMicros;
  // Whether this process has heard from the API server itself; a restored synced_at is the
  // previous agent's word, not a connection.
  private volatile boolean heardHere;

  /**
   * @param trust the served table's trust: anything below SYNCED is stale
   * @param disconnectedNanos how long the table's watches have been down (the longest), 0 when up
   * @param staleAfter {@code --relist-after}
   */
  public Freshness(TableTrust trust, LongSupplier disconnectedNanos, Duration staleAfter) {
    this.trust = Objects.requireNonNull(trust);
    this.disconnectedNanos = Objects.requireNonNull(disconnectedNanos);
    this.staleAfterNanos = staleAfter.toNanos();
  }

  /** The API server was heard from at {@code at}: a list completed, or a watch event arrived. */
  public void heard(Instant at) {
    heardHere = true;
    advance(at);
  }

  private void advance(Instant at) {
    long micros = at.getEpochSecond() * 1_000_000L + at.getNano() / 1_000;
    // Monotonic under races: a late caller with an older time never moves it back. The volatile
    // read spares the lock when the time is not newer (most watch events within one microsecond).
    if (micros <= syncedAtMicros) {
      return;
    }
    synchronized (this) {
      if (micros > syncedAtMicros) {
        syncedAtMicros = micros;
      }
    }
  }

  /**
   * The freshness of a table no watch feeds (a table written directly, as in tests and tools):
   * stale only while {@code trust} is below SYNCED, never disconnected, never heard from.
   */
  public static Freshness unwatched(TableTrust trust) {
    return new Freshness(trust, () -> 0, Duration.ZERO);
  }

  /**
   * Seeds {@link #syncedAt()} with the time a table restored from the state file was last synced by
   * the agent that wrote it, so a warm start can say how old its table is. Staleness is not
   * touched: a restored table stays stale until a list confirms it. Like {@link #heard}, it never
   * moves the time back.
   */
  public void restored(Instant lastSyncedAt) {
    advance(lastSyncedAt);
  }

  /**
   * Whether the table's watches are established: this process has heard from the API server (a
   * restored {@code synced_at} does not count) and no watch is down.
   */
  @Override
  public boolean connected() {
    return heardHere && disconnectedFor().isZero();
  }

  /**
   * When the API server was last heard from; empty before the first list of this process (or a
   * restored one).
   */
  @Override
  public Optional<Instant> syncedAt() {
    long micros = syncedAtMicros;
    return micros == 0
        ? Optional.empty()
        : Optional.of(Instant.ofEpochSecond(micros / 1_000_000L, (micros % 1_000_000L) * 1_000));
  }

  /** Whether the served table may be out of date (see the class comment). */
  @Override
  public boolean stale() {
    return trust.level() != TableTrust.Level.SYNCED
        || disconnectedNanos.getAsLong() > staleAfterNanos;
  }

  /** The trust level behind {@link #stale()}, for a status answer. */
  @Override
  public TableTrust.Level level() {
    return trust.level();
  }

  /** The trust this reads its level from (the serving layer checks it before every answer). */
  public TableTrust trust() {
    return trust;
  }

  @Override
  public Duration disconnectedFor() {
    return Duration.ofNanos(Math.max(0, disconnectedNanos.getAsLong()));
  }
}
