package dev.routesync.kube.watch;

import dev.routesync.sync.Scheduler;

/**
 * The one retry after a failed list or watch, at most one scheduled at a time, each consecutive
 * failure waiting longer ({@link Backoff}). Several informers of one generation may fail together:
 * they count as several failures but share the one retry.
 *
 * <p>Threading: the scheduler's context.
 */
final class RetryTimer {

  private final Scheduler scheduler;
  private final Backoff backoff;
  private final Runnable retry;
  private Scheduler.Cancellable scheduled;

  RetryTimer(Scheduler scheduler, Backoff backoff, Runnable retry) {
    this.scheduler = scheduler;
    this.backoff = backoff;
    this.retry = retry;
  }

  /**
   * One more consecutive failure: schedules the retry after the next backoff delay, unless one is
   * already scheduled. Returns that delay.
   */
  long failed() {
    long delay = backoff.nextDelayNanos();
    if (scheduled == null) {
      scheduled =
          scheduler.schedule(
              delay,
              () -> {
                scheduled = null;
                retry.run();
              });
    }
    return delay;
  }

  /** A list succeeded: the next failure starts again from the shortest delay. */
  void succeeded() {
    backoff.reset();
  }

  boolean isScheduled() {
    return scheduled != null;
  }

  /** Drops the scheduled retry, if any (a relist is starting anyway, or the watch stops). */
  void cancel() {
    if (scheduled != null) {
      scheduled.cancel();
      scheduled = null;
    }
  }
}
