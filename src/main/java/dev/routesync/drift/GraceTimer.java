package dev.routesync.drift;

import dev.routesync.sync.Scheduler;

/**
 * One timer at the earliest end of a grace still running, rather than one per pod: aimed again
 * after every round, and left alone when the earliest end has not moved.
 *
 * <p>Threading: the sync context (the timer's task runs there too).
 */
final class GraceTimer {

  /** No grace is running. */
  static final long NONE = Long.MAX_VALUE;

  private final Scheduler scheduler;
  private final Runnable ended;
  private Scheduler.Cancellable timer;
  private long due;

  /**
   * @param ended what runs when the timer fires (the timer is then unset)
   */
  GraceTimer(Scheduler scheduler, Runnable ended) {
    this.scheduler = scheduler;
    this.ended = ended;
  }

  /** Fires at {@code earliest} (monotonic nanos; {@link #NONE} for no timer). */
  void aimAt(long earliest, long now) {
    if (timer != null && due == earliest) {
      return;
    }
    if (timer != null) {
      timer.cancel();
      timer = null;
    }
    if (earliest != NONE) {
      due = earliest;
      timer = scheduler.schedule(Math.max(0, earliest - now), this::fired);
    }
  }

  private void fired() {
    timer = null;
    ended.run();
  }
}
