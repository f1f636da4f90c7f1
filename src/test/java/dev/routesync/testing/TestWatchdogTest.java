package dev.routesync.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class TestWatchdogTest {

  private static final long LIMIT = TimeUnit.SECONDS.toNanos(300);

  @Test
  void aLongRunThatKeepsMakingProgressIsNotHung() {
    AtomicLong now = new AtomicLong();
    TestWatchdog.Silence silence = new TestWatchdog.Silence(now::get);
    // Thirty minutes of tests, one finishing every minute: slow, never silent for 300 s.
    for (int minute = 1; minute <= 30; minute++) {
      now.addAndGet(TimeUnit.MINUTES.toNanos(1));
      assertThat(silence.longerThan(LIMIT)).as("minute %d", minute).isFalse();
      silence.progressed();
    }
  }

  @Test
  void silenceLongerThanTheLimitIsAHang() {
    AtomicLong now = new AtomicLong();
    TestWatchdog.Silence silence = new TestWatchdog.Silence(now::get);
    now.addAndGet(LIMIT);
    assertThat(silence.longerThan(LIMIT)).isFalse();
    now.addAndGet(1);
    assertThat(silence.longerThan(LIMIT)).isTrue();
  }

  @Test
  void theLauncherLoadsItAsAnExecutionListenerToo() throws Exception {
    // Without this registration nothing reports progress, and a slow run would look hung.
    assertThat(
            java.util.ServiceLoader.load(org.junit.platform.launcher.TestExecutionListener.class)
                .stream()
                .map(java.util.ServiceLoader.Provider::type))
        .contains(TestWatchdog.class);
  }
}
