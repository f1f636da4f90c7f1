package dev.routesync.kube.events;

import dev.routesync.sync.Scheduler;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** Wall time that moves with a fake scheduler: {@code start} plus its elapsed nanoseconds. */
final class SchedulerClock extends Clock {

  private final Scheduler scheduler;
  private final Instant start;
  private final long startNanos;

  SchedulerClock(Scheduler scheduler, Instant start) {
    this.scheduler = scheduler;
    this.start = start;
    this.startNanos = scheduler.nanoTime();
  }

  @Override
  public Instant instant() {
    return start.plusNanos(scheduler.nanoTime() - startNanos);
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    throw new UnsupportedOperationException();
  }
}
