package dev.routesync.drift;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.sync.FakeScheduler;
import dev.routesync.sync.FakeScheduler.PendingTask;
import org.junit.jupiter.api.Test;

/** {@link GraceTimer}: one timer, at the earliest grace end, however often it is aimed. */
class GraceTimerTest {

  private final FakeScheduler scheduler = new FakeScheduler();
  private int ended;
  private final GraceTimer timer = new GraceTimer(scheduler, () -> ended++);

  @Test
  void aimingAtTheSameEndKeepsTheTimerAndAnEarlierEndMovesIt() {
    timer.aimAt(100, 0);
    scheduler.advanceNanos(10);
    timer.aimAt(100, 10);
    assertThat(scheduler.pendingTasks()).extracting(PendingTask::dueNanos).containsExactly(100L);

    timer.aimAt(50, 10);
    assertThat(scheduler.pendingTasks()).extracting(PendingTask::dueNanos).containsExactly(50L);

    scheduler.advanceNanos(40);
    assertThat(ended).isEqualTo(1);
    assertThat(scheduler.pendingCount()).isZero();
  }

  @Test
  void noGraceRunningCancelsTheTimer() {
    timer.aimAt(100, 0);
    timer.aimAt(GraceTimer.NONE, 0);

    scheduler.advanceNanos(1_000);

    assertThat(ended).isZero();
    assertThat(scheduler.pendingCount()).isZero();
  }

  @Test
  void aTimerAfterOneFiredIsScheduledAgainEvenForTheSameEnd() {
    timer.aimAt(100, 0);
    scheduler.advanceNanos(100);
    timer.aimAt(100, 100); // a grace end already past: fires at once

    scheduler.runDueTasks();

    assertThat(ended).isEqualTo(2);
  }
}
