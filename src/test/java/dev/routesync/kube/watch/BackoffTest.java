package dev.routesync.kube.watch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class BackoffTest {

  private static final Duration MIN = Duration.ofSeconds(1);
  private static final Duration MAX = Duration.ofSeconds(30);

  /** A Random whose every draw is the same fraction of [0, 1). */
  private static Random always(double fraction) {
    return new Random() {
      @Override
      public double nextDouble() {
        return fraction;
      }
    };
  }

  private static List<Long> delaysMillis(Backoff backoff, int count) {
    List<Long> delays = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      delays.add(backoff.nextDelayNanos() / 1_000_000);
    }
    return delays;
  }

  @Test
  void theCeilingDoublesFromMinUpToMax() {
    Backoff backoff = new Backoff(MIN, MAX, always(0.999_999_999));

    assertThat(delaysMillis(backoff, 8))
        .containsExactly(999L, 1999L, 3999L, 7999L, 15999L, 29999L, 29999L, 29999L);
  }

  @Test
  void theFloorIsHalfTheCeiling() {
    Backoff backoff = new Backoff(MIN, MAX, always(0));

    assertThat(delaysMillis(backoff, 7))
        .containsExactly(500L, 1000L, 2000L, 4000L, 8000L, 15000L, 15000L);
  }

  @Test
  void everyDelayIsWithinHalfToAllOfItsCeiling() {
    Backoff backoff = new Backoff(MIN, MAX, new Random(42));
    long[] ceilings = {1_000, 2_000, 4_000, 8_000, 16_000, 30_000};
    long lowest = Long.MAX_VALUE;
    long highest = 0;
    for (int round = 0; round < 200; round++) {
      for (long ceiling : ceilings) {
        long delay = backoff.nextDelayNanos() / 1_000_000;
        assertThat(delay).isBetween(ceiling / 2, ceiling);
        if (ceiling == 30_000) {
          lowest = Math.min(lowest, delay);
          highest = Math.max(highest, delay);
        }
      }
      backoff.reset();
    }
    // Jittered: the draws spread over the range rather than sitting at one end.
    assertThat(lowest).isLessThan(16_000);
    assertThat(highest).isGreaterThan(29_000);
  }

  @Test
  void aSuccessStartsOverFromMin() {
    Backoff backoff = new Backoff(MIN, MAX, always(0));
    delaysMillis(backoff, 5);
    assertThat(backoff.failures()).isEqualTo(5);

    backoff.reset();

    assertThat(backoff.failures()).isZero();
    assertThat(backoff.nextDelayNanos()).isEqualTo(MIN.toNanos() / 2);
  }

  @Test
  void endlessFailuresStayAtMaxWithoutOverflow() {
    Backoff backoff = new Backoff(MIN, MAX, always(0.5));
    delaysMillis(backoff, 5); // 1, 2, 4, 8 and 16 s ceilings
    for (int i = 0; i < 10_000; i++) {
      assertThat(backoff.nextDelayNanos()).isBetween(MAX.toNanos() / 2, MAX.toNanos());
    }
    Backoff huge = new Backoff(Duration.ofDays(365), Duration.ofDays(3650), always(0));
    for (int i = 0; i < 100; i++) {
      assertThat(huge.nextDelayNanos())
          .isPositive()
          .isLessThanOrEqualTo(Duration.ofDays(3650).toNanos());
    }
  }

  @Test
  void rejectsAnEmptyOrInvertedRange() {
    assertThatThrownBy(() -> new Backoff(Duration.ZERO, MAX, new Random()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Backoff(MAX, MIN, new Random()))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
