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

  /**
   * Services that changed, appeared or went: which of this node's pods they select is rescanned.
   */
  final Set<ServiceRef> servicesChanged = new LinkedHashSet<>();

  /** Services whose slices changed: their pods here are evaluated again. */
  final Set<ServiceRef> slicesChanged = new LinkedHashSet<>();

  /** Pods ({@code "namespace/name"}) that changed: their Services are matched again. */
  final Set<String> podsChanged = new LinkedHashSet<>();

  /** Pods to evaluate against all their Services. */
  final Set<String> reevaluate = new LinkedHashSet<>();

  /** Services whose members or slices changed: their gauges are refreshed. */
  final Set<ServiceRef> touched = new LinkedHashSet<>();

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
    servicesChanged.clear();
    slicesChanged.clear();
    podsChanged.clear();
    reevaluate.clear();
  }

  /** The round is done. */
  void clear() {
    dropChanges();
    touched.clear();
  }
}
