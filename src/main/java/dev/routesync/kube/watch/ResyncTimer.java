package dev.routesync.kube.watch;

import dev.routesync.sync.Scheduler;
import java.time.Duration;
import java.util.Random;

/**
 * Anti-entropy: runs the relist task every {@code period}, each wait drawn uniformly in {@code
 * [0.9, 1.1] * period} so that a DaemonSet's agents, started together, do not all relist at the
 * same instant. A zero period turns it off.
 *
 * <p>Threading: started, stopped and run on the scheduler's context.
 */
final class ResyncTimer {

  private final Scheduler scheduler;
  private final long periodNanos;
  private final Random random;
  private final Runnable resync;
  private Scheduler.Cancellable next;
  private boolean stopped;

  ResyncTimer(Scheduler scheduler, Duration period, Random random, Runnable resync) {
    if (period.isNegative()) {
      throw new IllegalArgumentException("negative resync period: " + period);
    }
    this.scheduler = scheduler;
    this.periodNanos = period.toNanos();
    this.random = random;
    this.resync = resync;
  }

  /** Schedules the first resync, one jittered period from now. */
  void start() {
    scheduleNext();
  }

  /** No more resyncs, including one due now. */
  void stop() {
    stopped = true;
    if (next != null) {
      next.cancel();
      next = null;
    }
  }

  private void scheduleNext() {
    if (periodNanos == 0 || stopped) {
      return;
    }
    long jittered = (long) (periodNanos * (0.9 + 0.2 * random.nextDouble()));
    next =
        scheduler.schedule(
            jittered,
            () -> {
              resync.run();
              scheduleNext();
            });
  }
}
