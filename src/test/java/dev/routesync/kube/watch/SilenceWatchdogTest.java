package dev.routesync.kube.watch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import dev.routesync.observe.Metrics;
import dev.routesync.sync.FakeScheduler;
import dev.routesync.testing.LogCapture;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The watch-hang watchdog on the fake clock: what counts as silence, and what does not. */
class SilenceWatchdogTest {

  private static final Duration INTERVAL = Duration.ofMillis(500);
  private static final Duration SILENCE = Duration.ofMinutes(5);

  private final FakeScheduler scheduler = new FakeScheduler(42_000_000_000L);
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final FakeWatch watch = new FakeWatch();
  private final SilenceWatchdog watchdog =
      new SilenceWatchdog(
          "Service", scheduler, INTERVAL, SILENCE, new Metrics(registry).watch("Service"), watch);

  /** The guarded watch, as the test sets it; a silence starts a relist, as the real one does. */
  private static final class FakeWatch implements SilenceWatchdog.Watched {
    boolean listening = true;
    long resourceVersion = 100;
    final List<Long> silent = new ArrayList<>();

    @Override
    public boolean listening() {
      return listening;
    }

    @Override
    public Object progress() {
      return List.of(String.valueOf(resourceVersion));
    }

    @Override
    public void silent(long silentNanos) {
      silent.add(silentNanos);
      listening = false; // a new generation is listing now
    }
  }

  private double restarts() {
    return registry
        .get("routesync.watch.restarts")
        .tags("kind", "Service", "reason", "silent")
        .counter()
        .count();
  }

  private double bookmarks() {
    return registry.get("routesync.watch.bookmarks").tag("kind", "Service").counter().count();
  }

  private static List<String> warnings(LogCapture logs) {
    return logs.lines().stream().filter(line -> line.startsWith("WARN ")).toList();
  }

  @Test
  void aWatchSilentForWatchSilenceIsRestartedOnceAndCountedOnce() {
    try (LogCapture logs = new LogCapture(SilenceWatchdog.class.getName(), Level.INFO)) {
      watchdog.start();

      scheduler.advance(SILENCE.minus(INTERVAL));
      assertThat(watch.silent).isEmpty();
      assertThat(restarts()).isZero();

      scheduler.advance(INTERVAL);
      assertThat(watch.silent).containsExactly(SILENCE.toNanos());
      assertThat(restarts()).isEqualTo(1.0);
      assertThat(warnings(logs))
          .singleElement()
          .asString()
          // Durations as the flags write them, never 300.0 s beside PT5M.
          .contains("Service watch silent for 5m (no event, no bookmark; --watch-silence 5m)")
          .contains("relisting");

      // The relist is under way: however long it takes, no second restart for the same silence.
      scheduler.advance(SILENCE.multipliedBy(3));
      assertThat(watch.silent).hasSize(1);
      assertThat(restarts()).isEqualTo(1.0);
      assertThat(warnings(logs)).hasSize(1);
    }
  }

  @Test
  void eachSilenceOfANewGenerationIsItsOwnRestart() {
    watchdog.start();
    scheduler.advance(SILENCE);
    assertThat(restarts()).isEqualTo(1.0);

    // The new generation has synced and is served: its silence is counted from then.
    scheduler.advance(Duration.ofSeconds(7));
    watch.listening = true;
    scheduler.advance(SILENCE.minus(INTERVAL));
    assertThat(restarts()).isEqualTo(1.0);
    scheduler.advance(INTERVAL);
    assertThat(restarts()).isEqualTo(2.0);
    assertThat(watch.silent).hasSize(2);
  }

  @Test
  void anEventRestartsTheSilenceClock() {
    watchdog.start();
    scheduler.advance(SILENCE.minusSeconds(10));
    watchdog.heard();
    watch.resourceVersion++; // an event moves the version too

    scheduler.advance(SILENCE.minus(INTERVAL));
    assertThat(watch.silent).isEmpty();
    assertThat(bookmarks()).isZero(); // it was an event, not a bookmark

    scheduler.advance(INTERVAL);
    assertThat(watch.silent).hasSize(1);
  }

  @Test
  void aBookmarkRestartsTheSilenceClockAndIsCounted() {
    watchdog.start();
    scheduler.advance(INTERVAL); // the baseline sample
    // fabric8 handles BOOKMARK itself; all the watch shows is a newer resourceVersion.
    for (int minute = 1; minute <= 30; minute++) {
      scheduler.advance(Duration.ofMinutes(1));
      watch.resourceVersion++;
    }
    assertThat(watch.silent).isEmpty();
    assertThat(bookmarks()).isEqualTo(29.0); // the 30th is sampled at the next interval
    scheduler.advance(INTERVAL);
    assertThat(bookmarks()).isEqualTo(30.0);

    // The bookmarks stop: five minutes from the sample that saw the last one, not from the start.
    scheduler.advance(SILENCE.minus(INTERVAL));
    assertThat(watch.silent).isEmpty();
    scheduler.advance(INTERVAL);
    assertThat(watch.silent).hasSize(1);
  }

  @Test
  void aBookmarkRepeatingTheLastVersionIsNoSignOfLife() {
    watchdog.start();
    scheduler.advance(INTERVAL);
    // What the watchdog can see is the version: the same one again is indistinguishable from
    // nothing. (A real API server sends a bookmark only with a newer version than the watch
    // started from; see SilenceWatchdog.)
    scheduler.advance(SILENCE.minus(INTERVAL));
    assertThat(watch.silent).hasSize(1);
    assertThat(bookmarks()).isZero();
  }

  @Test
  void neverDuringAListOrARetry() {
    watch.listening = false; // the first generation is listing (or failed and waits to retry)
    watchdog.start();

    scheduler.advance(SILENCE.multipliedBy(4));
    assertThat(watch.silent).isEmpty();
    assertThat(restarts()).isZero();

    // Served at last: its silence starts now, not when the list began.
    watch.listening = true;
    scheduler.advance(SILENCE.minus(INTERVAL));
    assertThat(watch.silent).isEmpty();
    scheduler.advance(INTERVAL.multipliedBy(2));
    assertThat(watch.silent).hasSize(1);
  }

  @Test
  void neverWhileDisconnectedThatIsTheConnectivityChecksOutage() {
    watchdog.start();
    scheduler.advance(SILENCE.minusSeconds(30));

    // Down (listening() is false while the informers are not watching) past the silence: one
    // recovery only, the connectivity check's relist after --relist-after.
    watch.listening = false;
    scheduler.advance(SILENCE.multipliedBy(2));
    assertThat(watch.silent).isEmpty();

    // Reconnected (fabric8 resumed the watch): the reconnected watch gets a full silence.
    watch.listening = true;
    scheduler.advance(SILENCE.minus(INTERVAL));
    assertThat(watch.silent).isEmpty();
    scheduler.advance(INTERVAL.multipliedBy(2));
    assertThat(watch.silent).hasSize(1);
    assertThat(restarts()).isEqualTo(1.0);
  }

  @Test
  void stoppedItNeverFires() {
    watchdog.start();
    scheduler.advance(SILENCE.minusSeconds(1));
    watchdog.stop();

    scheduler.advance(SILENCE.multipliedBy(2));
    assertThat(watch.silent).isEmpty();
    assertThat(scheduler.pendingCount()).isZero();
  }

  @Test
  void rejectsIntervalsItCannotRun() {
    var observer = new Metrics(registry).watch("Pod");
    assertThatThrownBy(
            () -> new SilenceWatchdog("Pod", scheduler, Duration.ZERO, SILENCE, observer, watch))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () ->
                new SilenceWatchdog(
                    "Pod", scheduler, INTERVAL, Duration.ofSeconds(-1), observer, watch))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
