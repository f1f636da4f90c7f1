package dev.routesync.kube.watch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.sync.FakeScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class RetryTimerTest {

  private static final Duration MIN = Duration.ofSeconds(1);
  private static final Duration MAX = Duration.ofSeconds(30);

  private final FakeScheduler scheduler = new FakeScheduler();
  private final List<Long> retriedAt = new ArrayList<>();
  // Every draw at the ceiling's floor: delays are exactly min/2, min, 2 min, ...
  private final RetryTimer retry =
      new RetryTimer(
          scheduler,
          new Backoff(
              MIN,
              MAX,
              new Random() {
                @Override
                public double nextDouble() {
                  return 0;
                }
              }),
          () -> retriedAt.add(scheduler.nanoTime()));

  @Test
  void aFailureRetriesOnceAfterTheBackoff() {
    long delay = retry.failed();

    assertThat(delay).isEqualTo(MIN.toNanos() / 2);
    assertThat(retry.isScheduled()).isTrue();
    scheduler.advance(Duration.ofMinutes(5));
    assertThat(retriedAt).containsExactly(delay);
    assertThat(retry.isScheduled()).isFalse();
  }

  @Test
  void failuresTogetherShareOneRetryButEachLengthensTheNext() {
    retry.failed(); // 0.5 s, scheduled
    retry.failed(); // 1 s, counted, not scheduled: the first retry still stands
    scheduler.advance(Duration.ofMinutes(1));
    assertThat(retriedAt).containsExactly(Duration.ofMillis(500).toNanos());

    long third = retry.failed();

    assertThat(third).isEqualTo(Duration.ofSeconds(2).toNanos());
    scheduler.advance(Duration.ofMinutes(1));
    assertThat(retriedAt).hasSize(2);
  }

  @Test
  void aSuccessStartsOverFromTheShortestDelay() {
    retry.failed();
    retry.failed();
    retry.failed();
    scheduler.advance(Duration.ofMinutes(1));

    retry.succeeded();

    assertThat(retry.failed()).isEqualTo(MIN.toNanos() / 2);
  }

  @Test
  void cancelDropsTheScheduledRetry() {
    retry.failed();

    retry.cancel();

    assertThat(retry.isScheduled()).isFalse();
    assertThat(scheduler.pendingCount()).isZero();
    scheduler.advance(Duration.ofMinutes(5));
    assertThat(retriedAt).isEmpty();
    retry.failed(); // and a later failure schedules again
    assertThat(retry.isScheduled()).isTrue();
  }
}
