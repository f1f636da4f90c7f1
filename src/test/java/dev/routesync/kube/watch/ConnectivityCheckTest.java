package dev.routesync.kube.watch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.routesync.observe.Metrics;
import dev.routesync.sync.FakeScheduler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConnectivityCheckTest {

  private static final Duration INTERVAL = Duration.ofMillis(500);
  private static final Duration RELIST_AFTER = Duration.ofSeconds(10);

  private final FakeScheduler scheduler = new FakeScheduler();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final Connectivity connectivity =
      new Connectivity("EndpointSlice", scheduler, new Metrics(registry).watch("EndpointSlice"));
  private final FakeWatch watch = new FakeWatch();
  private final ConnectivityCheck check =
      new ConnectivityCheck(scheduler, INTERVAL, RELIST_AFTER, connectivity, watch);

  /** The watched side, as the test sets it. */
  private static final class FakeWatch implements ConnectivityCheck.Watched {
    boolean watching = true;
    boolean relistWouldHelp = true;
    final List<Long> stale = new ArrayList<>();

    @Override
    public boolean watching() {
      return watching;
    }

    @Override
    public boolean relistWouldHelp() {
      return relistWouldHelp;
    }

    @Override
    public void stale(long outageNanos) {
      stale.add(outageNanos);
      relistWouldHelp = false; // a relist is now under way
    }
  }

  private double connected() {
    return registry.get("routesync.api.connected").gauge().value();
  }

  @Test
  void samplesEveryIntervalIntoTheConnectedGauge() {
    check.start();
    scheduler.advance(INTERVAL);
    assertThat(connected()).isEqualTo(1.0);

    watch.watching = false;
    scheduler.advance(INTERVAL.minusMillis(1));
    assertThat(connected()).isEqualTo(1.0); // not sampled yet
    scheduler.advance(Duration.ofMillis(1));
    assertThat(connected()).isZero();
    assertThat(connectivity.outageNanos()).isZero(); // down since this very sample
  }

  @Test
  void anOutageOfRelistAfterDeclaresTheWatchStaleOnce() {
    check.start();
    scheduler.advance(INTERVAL);
    watch.watching = false;
    scheduler.advance(INTERVAL); // first sample down, at 1 s

    scheduler.advance(RELIST_AFTER.minus(INTERVAL));
    assertThat(watch.stale).isEmpty(); // 9.5 s down

    scheduler.advance(INTERVAL);
    assertThat(watch.stale).containsExactly(RELIST_AFTER.toNanos());

    scheduler.advance(Duration.ofMinutes(1)); // the relist is under way: not asked again
    assertThat(watch.stale).hasSize(1);
  }

  @Test
  void aBlipShorterThanRelistAfterIsResumedNotRelisted() {
    check.start();
    watch.watching = false;
    scheduler.advance(RELIST_AFTER); // down from the sample at 0.5 s to the one at 10 s: 9.5 s
    watch.watching = true;
    scheduler.advance(INTERVAL); // up at 10.5 s
    watch.watching = false;
    scheduler.advance(RELIST_AFTER); // down again from 11 s; at 20.5 s that is 9.5 s

    assertThat(watch.stale).isEmpty(); // 20 s since the first outage began, but it ended
    scheduler.advance(INTERVAL);
    assertThat(watch.stale).containsExactly(RELIST_AFTER.toNanos());
  }

  @Test
  void aWatchThatCannotBeHelpedByARelistIsLeftToItsRetry() {
    watch.relistWouldHelp = false; // failed, or a relist is already scheduled
    watch.watching = false;
    check.start();

    scheduler.advance(Duration.ofMinutes(5));

    assertThat(watch.stale).isEmpty();
    assertThat(connected()).isZero();
  }

  @Test
  void stopEndsTheSampling() {
    check.start();
    scheduler.advance(INTERVAL.multipliedBy(3));
    check.stop();

    assertThat(scheduler.pendingCount()).isZero();
    watch.watching = false;
    scheduler.advance(Duration.ofMinutes(1));
    assertThat(connected()).isEqualTo(1.0);
    assertThat(watch.stale).isEmpty();
  }

  @Test
  void rejectsAnIntervalThatWouldSpin() {
    assertThatThrownBy(
            () ->
                new ConnectivityCheck(scheduler, Duration.ZERO, RELIST_AFTER, connectivity, watch))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
