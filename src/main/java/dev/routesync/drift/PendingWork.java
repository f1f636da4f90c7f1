package dev.routesync.drift;

import dev.routesync.sync.Scheduler;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * What the next evaluation round must look at, and the debounce timer that runs it: changes are
 * gathered between rounds so that a burst of events (a rollout, a relist) costs one round, at most
 * one debounce after its first event.
 *
 * <p>Threading: the sync context (the sets are read and cleared by the round, filled by the
 * inputs).
 */
final class PendingWork {

  /** Above this many entries a set is replaced rather than cleared: more than a burst's work. */
  private static final int REPLACE_ABOVE = 256;

  // Not final: a round replaces a set that grew large instead of clearing it (see emptied).

  /**
   * Services that changed, appeared or went: which of this node's pods they select is rescanned.
   */
  Set<ServiceRef> servicesChanged = new LinkedHashSet<>();

  /** Services whose slices changed: their pods here are evaluated again. */
  Set<ServiceRef> slicesChanged = new LinkedHashSet<>();

  /** Pods ({@code "namespace/name"}) that changed: their Services are matched again. */
  Set<String> podsChanged = new LinkedHashSet<>();

  /** Pods to evaluate against all their Services. */
  Set<String> reevaluate = new LinkedHashSet<>();

  /** Services whose members or slices changed: their gauges are refreshed. */
  Set<ServiceRef> touched = new LinkedHashSet<>();

  private final Scheduler scheduler;
  private final long debounceNanos;
  private final Runnable round;
  private Scheduler.Cancellable timer;

  PendingWork(Scheduler scheduler, long debounceNanos, Runnable round) {
    this.scheduler = scheduler;
    this.debounceNanos = debounceNanos;
    this.round = round;
  }

  /** Something changed: a round runs one debounce from the first change since the last round. */
  void scheduleRound() {
    if (timer == null) {
      timer = scheduler.schedule(debounceNanos, round);
    }
  }

  /** The round starts (its timer fired, or it runs early): the next change schedules another. */
  void roundStarted() {
    timer = null;
  }

  /** A round runs early (a grace ended): the debounced one is not needed. */
  void cancelScheduledRound() {
    if (timer != null) {
      timer.cancel();
    }
  }

  /** The pod is gone: nothing is left to do for it. */
  void forgetPod(String key) {
    podsChanged.remove(key);
    reevaluate.remove(key);
  }

  /**
   * Drops the changes gathered before every watch has synced: the first full round looks at
   * everything. The touched Services are kept, so that round refreshes their gauges.
   */
  void dropChanges() {
    servicesChanged = emptied(servicesChanged);
    slicesChanged = emptied(slicesChanged);
    podsChanged = emptied(podsChanged);
    reevaluate = emptied(reevaluate);
  }

  /** The round is done. */
  void clear() {
    dropChanges();
    touched = emptied(touched);
  }

  /**
   * An empty set for the next round. {@code HashSet.clear()} costs the table's capacity, which
   * never shrinks: after the first sync put the whole cluster in these sets, every later round paid
   * for 16,384 slots at 10,000 Services (DriftDetectorBenchmark: a lone slice event 4.3 µs at 1,000
   * Services, 14-18 µs at 10,000). A set that held more than a round's usual work is replaced
   * instead, so a round costs its own size and normal rounds allocate nothing.
   */
  static <T> Set<T> emptied(Set<T> set) {
    if (set.size() > REPLACE_ABOVE) {
      return new LinkedHashSet<>();
    }
    set.clear();
    return set;
  }
}
