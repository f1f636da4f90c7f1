package dev.routesync.sync;

import dev.routesync.table.ServiceKey;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns a stream of "service X changed" marks into batches, coalescing state rather than queueing
 * events: a service marked a thousand times in a burst is recomputed once.
 *
 * <p>Policy: the first change after a quiet spell is flushed at once (leading edge: a lone change
 * pays no debounce). Further changes wait until no change arrived for {@code debounce}, but never
 * longer than {@code maxDelay} after the first pending change, and never once {@code maxBatch}
 * services are dirty. One flush runs at a time; changes marked during a flush make exactly one
 * more.
 *
 * <p>Threading: not thread-safe by design. Every method must be called on the single context that
 * owns this coalescer, which is also where the {@link Scheduler} runs its timers; that is why it
 * needs no lock. Only {@link #oldestPendingAgeNanos()} may be read from other threads.
 */
public final class Coalescer {

  /** Receives each batch, synchronously, on the coalescer's context. */
  @FunctionalInterface
  public interface BatchSink {
    void flush(Batch batch);
  }

  private static final Logger LOG = LoggerFactory.getLogger(Coalescer.class);
  private static final long NONE = Long.MIN_VALUE;

  private final Scheduler scheduler;
  private final CoalescerSettings settings;
  private final BatchSink sink;
  private final long debounceNanos;
  private final long maxDelayNanos;

  // Each dirty key with the arrival time of its first change in this batch.
  private Map<ServiceKey, Long> pending = new HashMap<>();
  private long firstPendingNanos = NONE;
  private long lastChangeNanos = NONE;
  private Scheduler.Cancellable quietTimer;
  private Scheduler.Cancellable maxDelayTimer;
  private boolean flushing;
  private boolean relistPending;
  // While held (an agent's start, until both table watches have synced): every key, nothing
  // flushed.
  private Set<ServiceKey> held;
  // Written on the context, read by the liveness probe on another thread.
  private volatile long oldestPendingSince = NONE;

  public Coalescer(Scheduler scheduler, CoalescerSettings settings, BatchSink sink) {
    this.scheduler = Objects.requireNonNull(scheduler);
    this.settings = Objects.requireNonNull(settings);
    this.sink = Objects.requireNonNull(sink);
    this.debounceNanos = settings.debounce().toNanos();
    this.maxDelayNanos = settings.maxDelay().toNanos();
  }

  /**
   * Holds every flush until {@link #release}: marks and relists only collect their keys. The agent
   * holds its coalescer from start until both table watches (slices and Services) have synced, so
   * the first list publishes one version computed from both, never a half (a restored table served
   * meanwhile must not lose its Services' ports, or its Services, to whichever watch lists first).
   * Held keys wait on purpose: they do not count as unpublished changes for liveness.
   */
  public void hold() {
    if (held == null) {
      held = new HashSet<>();
    }
  }

  /**
   * Ends a {@link #hold}: everything collected, with {@code alsoKeys}, is flushed now as one batch
   * (cause relist). A release without a hold does nothing.
   *
   * @param alsoKeys Services to recompute as well (a restored table's, so the gone are removed)
   */
  public void release(Collection<ServiceKey> alsoKeys) {
    if (held == null) {
      return;
    }
    Set<ServiceKey> keys = held;
    held = null;
    keys.addAll(alsoKeys);
    flushAsOne(keys);
  }

  /** Marks one service dirty, arrived now. */
  public void markDirty(ServiceKey key) {
    markDirty(key, scheduler.nanoTime());
  }

  /**
   * Marks one service dirty.
   *
   * @param arrivedNanos when the change reached the agent (the watch handler's time), for the
   *     event-to-publish latency metric
   */
  public void markDirty(ServiceKey key, long arrivedNanos) {
    if (held != null) {
      held.add(key);
      return;
    }
    long now = scheduler.nanoTime();
    boolean quietSpell = lastChangeNanos == NONE || now - lastChangeNanos >= debounceNanos;
    lastChangeNanos = now;
    // A key already pending keeps its first arrival; checking first boxes no arrival time for
    // it (most events at a high rate hit a pending key).
    if (!pending.containsKey(key)) {
      addPending(key, Math.min(arrivedNanos, now));
    }
    if (flushing) {
      return;
    }
    if (pending.size() == 1 && quietSpell && quietTimer == null) {
      flush(Batch.Cause.LEADING_EDGE);
    } else if (pending.size() >= settings.maxBatch()) {
      flush(Batch.Cause.MAX_BATCH);
    } else {
      armTimers(now);
    }
  }

  /**
   * Marks many services dirty and flushes them, with whatever else is pending, as one batch now,
   * whatever its size: a relist publishes its whole difference as one version.
   */
  public void flushAsOne(Collection<ServiceKey> keys) {
    if (held != null) {
      held.addAll(keys);
      return;
    }
    long now = scheduler.nanoTime();
    lastChangeNanos = now;
    for (ServiceKey key : keys) {
      addPending(key, now);
    }
    if (flushing) {
      relistPending = true;
      return;
    }
    flush(Batch.Cause.RELIST);
  }

  /** How long the oldest unpublished change has waited, or 0 when nothing is pending. */
  public long oldestPendingAgeNanos() {
    long since = oldestPendingSince;
    return since == NONE ? 0 : Math.max(0, scheduler.nanoTime() - since);
  }

  /** Number of services waiting for the next flush (for tests and metrics). */
  public int pendingCount() {
    return pending.size();
  }

  private void addPending(ServiceKey key, long now) {
    if (firstPendingNanos == NONE) {
      firstPendingNanos = now;
      oldestPendingSince = now;
    }
    pending.putIfAbsent(key, now);
  }

  private void armTimers(long now) {
    if (quietTimer == null) {
      quietTimer = scheduler.schedule(debounceNanos, this::onQuietTimer);
    }
    if (maxDelayTimer == null) {
      long remaining = Math.max(0, firstPendingNanos + maxDelayNanos - now);
      maxDelayTimer = scheduler.schedule(remaining, () -> onMaxDelay());
    }
  }

  // One quiet timer per batch, re-armed for the remainder instead of cancelled on every event:
  // a burst of thousands of events costs a handful of timers.
  private void onQuietTimer() {
    quietTimer = null;
    if (pending.isEmpty()) {
      return;
    }
    long now = scheduler.nanoTime();
    long quietFor = now - lastChangeNanos;
    if (quietFor >= debounceNanos) {
      flush(Batch.Cause.QUIET);
    } else {
      quietTimer = scheduler.schedule(debounceNanos - quietFor, this::onQuietTimer);
    }
  }

  private void onMaxDelay() {
    maxDelayTimer = null;
    if (!pending.isEmpty()) {
      flush(Batch.Cause.MAX_DELAY);
    }
  }

  private void flush(Batch.Cause cause) {
    cancelTimers();
    long now = scheduler.nanoTime();
    // A relist with nothing to publish has no pending change (firstPendingNanos is NONE).
    long waited = firstPendingNanos == NONE ? 0 : now - firstPendingNanos;
    // The batch takes the map over (no copy); the next one starts at this one's size, so a
    // steady stream of events does not regrow it from empty, rehashing every key, each batch.
    Batch batch = Batch.handOver(pending, waited, cause);
    pending = new HashMap<>(capacityFor(batch.keys().size()));
    firstPendingNanos = NONE;
    oldestPendingSince = NONE;
    flushing = true;
    try {
      sink.flush(batch);
    } catch (RuntimeException e) {
      // A failed flush must not wedge the coalescer; the keys will be recomputed on their next
      // change or the next resync.
      LOG.error("flush of {} services failed", batch.keys().size(), e);
    } finally {
      flushing = false;
    }
    if (relistPending) {
      relistPending = false;
      flush(Batch.Cause.RELIST);
    } else if (!pending.isEmpty()) {
      armTimers(scheduler.nanoTime());
    }
  }

  /** A HashMap capacity that holds {@code size} entries without a resize (load factor 0.75). */
  private static int capacityFor(int size) {
    return (int) Math.min(1 << 30, size * 4L / 3 + 1);
  }

  private void cancelTimers() {
    if (quietTimer != null) {
      quietTimer.cancel();
      quietTimer = null;
    }
    if (maxDelayTimer != null) {
      maxDelayTimer.cancel();
      maxDelayTimer = null;
    }
  }
}
