package dev.routesync.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class WritePacingTest {

  private static final long SECOND = TimeUnit.SECONDS.toNanos(1);
  private static final long MILLI = TimeUnit.MILLISECONDS.toNanos(1);

  private final WritePacing pacing = new WritePacing(SECOND);

  @Test
  void aQuickWriteIsFollowedAFlushPeriodLater() {
    assertThat(pacing.delayNanos(0, 5 * MILLI, 100 * MILLI)).isEqualTo(900 * MILLI);
  }

  @Test
  void aSlowWriteIsFollowedTwentyTimesItsDurationLater() {
    // A 150,000-endpoint table: 200 ms to write, so the writer keeps to 5% of a core.
    assertThat(pacing.delayNanos(0, 200 * MILLI, 200 * MILLI)).isEqualTo(3_800 * MILLI);
  }

  @Test
  void aWriteLongOverdueIsDueAtOnce() {
    assertThat(pacing.delayNanos(0, 200 * MILLI, 10 * SECOND)).isZero();
  }
}
