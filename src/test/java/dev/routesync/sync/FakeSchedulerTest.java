package dev.routesync.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FakeSchedulerTest {

  private final FakeScheduler scheduler = new FakeScheduler();
  private final List<String> ran = new ArrayList<>();

  private Scheduler.Cancellable record(long delayNanos, String name) {
    return scheduler.schedule(delayNanos, () -> ran.add(name + "@" + scheduler.nanoTime()));
  }

  @Test
  void timeOnlyMovesWhenAdvanced() {
    FakeScheduler started = new FakeScheduler(1_000);

    assertThat(started.nanoTime()).isEqualTo(1_000);
    started.advance(Duration.ofNanos(500));
    assertThat(started.nanoTime()).isEqualTo(1_500);
  }

  @Test
  void tasksRunInDueOrderThenInsertionOrderAtTheirDueTime() {
    record(30, "c");
    record(10, "a1");
    record(20, "b");
    record(10, "a2");

    scheduler.advanceNanos(25);

    assertThat(ran).containsExactly("a1@10", "a2@10", "b@20");
    assertThat(scheduler.nanoTime()).isEqualTo(25);
    assertThat(scheduler.pendingTasks())
        .extracting(FakeScheduler.PendingTask::dueNanos)
        .containsExactly(30L);
  }

  @Test
  void taskScheduledWhileAdvancingRunsInTheSameWindowWhenItFallsDue() {
    scheduler.schedule(
        10,
        () -> {
          ran.add("outer@" + scheduler.nanoTime());
          record(5, "inner");
          record(0, "now");
          record(100, "later");
        });

    scheduler.advanceNanos(20);

    assertThat(ran).containsExactly("outer@10", "now@10", "inner@15");
    assertThat(scheduler.pendingCount()).isEqualTo(1);
    assertThat(scheduler.nextDueNanos()).hasValue(110);
  }

  @Test
  void cancelledTaskNeverRunsAndCancellingTwiceOrAfterRunningIsHarmless() {
    Scheduler.Cancellable first = record(10, "first");
    Scheduler.Cancellable second = record(10, "second");

    second.cancel();
    second.cancel();
    assertThat(scheduler.pendingTasks()).hasSize(1);
    scheduler.advanceNanos(10);
    first.cancel();

    assertThat(ran).containsExactly("first@10");
    assertThat(scheduler.pendingTasks()).isEmpty();
    assertThat(scheduler.nextDueNanos()).isEmpty();
  }

  @Test
  void taskMayCancelAnotherDueInTheSameWindow() {
    List<Scheduler.Cancellable> victim = new ArrayList<>();
    scheduler.schedule(10, () -> victim.get(0).cancel());
    victim.add(record(20, "victim"));

    scheduler.advanceNanos(30);

    assertThat(ran).isEmpty();
    assertThat(scheduler.tasksRun()).isEqualTo(1);
  }

  @Test
  void elapseMovesTheClockWithoutRunningTasksWhichThenRunLateInDueOrder() {
    record(10, "a");
    record(20, "b");

    scheduler.elapse(Duration.ofNanos(50));

    assertThat(ran).isEmpty();
    assertThat(scheduler.nanoTime()).isEqualTo(50);
    scheduler.runDueTasks();
    assertThat(ran).containsExactly("a@50", "b@50");
  }

  @Test
  void advanceToMovesTheClockToAnInstantRunningWhatFallsDueOnTheWay() {
    record(10, "a");
    record(40, "b");

    scheduler.advanceTo(25);
    scheduler.advanceTo(25); // standing still is fine (replayed events may share an instant)

    assertThat(ran).containsExactly("a@10");
    assertThat(scheduler.nanoTime()).isEqualTo(25);
    assertThatThrownBy(() -> scheduler.advanceTo(24))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("24 < 25");
  }

  @Test
  void negativeDelaysAndBackwardTimeAreRejected() {
    assertThatThrownBy(() -> scheduler.schedule(-1, () -> {}))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> scheduler.advanceNanos(-1))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
