package dev.routesync.kube.watch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.routesync.sync.FakeScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ResyncTimerTest {

  private static final Duration PERIOD = Duration.ofMinutes(10);

  private final FakeScheduler scheduler = new FakeScheduler(123_456_789L);
  private final List<Long> ranAt = new ArrayList<>();

  private ResyncTimer timer(Duration period, Random random) {
    return new ResyncTimer(scheduler, period, random, () -> ranAt.add(scheduler.nanoTime()));
  }

  /** A Random whose every draw is the same fraction of [0, 1). */
  private static Random always(double fraction) {
    return new Random() {
      @Override
      public double nextDouble() {
        return fraction;
      }
    };
  }

  @Test
  void nothingRunsBeforeStart() {
    timer(PERIOD, new Random(1));

    scheduler.advance(PERIOD.multipliedBy(5));

    assertThat(ranAt).isEmpty();
  }

  @Test
  void eachWaitIsWithinTenPercentOfThePeriodAndItRepeats() {
    ResyncTimer timer = timer(PERIOD, new Random(7));
    long start = scheduler.nanoTime();
    timer.start();

    scheduler.advance(PERIOD.multipliedBy(200));

    assertThat(ranAt).hasSizeBetween(181, 223);
    long previous = start;
    long shortest = Long.MAX_VALUE;
    long longest = 0;
    for (long at : ranAt) {
      long waited = at - previous;
      assertThat(waited).isBetween(PERIOD.toNanos() * 9 / 10, PERIOD.toNanos() * 11 / 10);
      shortest = Math.min(shortest, waited);
      longest = Math.max(longest, waited);
      previous = at;
    }
    // Jittered both ways, not a fixed period.
    assertThat(shortest).isLessThan(PERIOD.toNanos() * 92 / 100);
    assertThat(longest).isGreaterThan(PERIOD.toNanos() * 108 / 100);
  }

  @Test
  void theJitterBoundsAreExact() {
    ResyncTimer early = timer(PERIOD, always(0));
    early.start();
    assertThat(scheduler.nextDueNanos()).hasValue(scheduler.nanoTime() + PERIOD.toNanos() * 9 / 10);
    early.stop();

    timer(PERIOD, always(0.5)).start();
    assertThat(scheduler.nextDueNanos()).hasValue(scheduler.nanoTime() + PERIOD.toNanos());
  }

  @Test
  void aZeroPeriodIsOff() {
    timer(Duration.ZERO, new Random(1)).start();

    assertThat(scheduler.pendingCount()).isZero();
    scheduler.advance(Duration.ofDays(1));
    assertThat(ranAt).isEmpty();
  }

  @Test
  void stopCancelsTheNextResync() {
    ResyncTimer timer = timer(PERIOD, new Random(3));
    timer.start();
    scheduler.advance(PERIOD.multipliedBy(3));
    int before = ranAt.size();

    timer.stop();

    assertThat(scheduler.pendingCount()).isZero();
    scheduler.advance(PERIOD.multipliedBy(10));
    assertThat(ranAt).hasSize(before);
  }

  @Test
  void stoppedByItsOwnTaskItDoesNotReschedule() {
    ResyncTimer[] self = new ResyncTimer[1];
    self[0] =
        new ResyncTimer(
            scheduler,
            PERIOD,
            new Random(5),
            () -> {
              ranAt.add(scheduler.nanoTime());
              self[0].stop();
            });
    self[0].start();

    scheduler.advance(PERIOD.multipliedBy(10));

    assertThat(ranAt).hasSize(1);
    assertThat(scheduler.pendingCount()).isZero();
  }

  @Test
  void rejectsANegativePeriod() {
    assertThatThrownBy(() -> timer(Duration.ofSeconds(-1), new Random()))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
