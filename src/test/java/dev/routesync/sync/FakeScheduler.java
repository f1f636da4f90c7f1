package dev.routesync.sync;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalLong;
import java.util.PriorityQueue;

/**
 * A hand-written {@link Scheduler} on a fake clock, for tests that must never sleep.
 *
 * <p>Time only moves when the test calls {@link #advance(Duration)}, {@link #advanceNanos(long)},
 * {@link #advanceTo(long)} or {@link #elapse(Duration)}. Tasks run on the calling thread, in
 * due-time order and, for equal due times, in the order they were scheduled. A task scheduled while
 * advancing (by another task) that falls due within the window runs in the same call. Cancelled
 * tasks never run and are dropped from {@link #pendingTasks()}.
 *
 * <p>Not thread-safe, like the single context it stands in for. Published in the test-jar: the
 * benchmarks replay recorded time with it.
 */
public final class FakeScheduler implements Scheduler {

  /** A scheduled, not yet run and not cancelled task (a snapshot, for assertions). */
  public record PendingTask(long dueNanos, long sequence) {}

  private final PriorityQueue<Task> queue =
      new PriorityQueue<>(
          Comparator.comparingLong((Task t) -> t.dueNanos).thenComparingLong(t -> t.sequence));
  private long now;
  private long nextSequence;
  private long tasksRun;

  /** Starts the clock at 0. */
  public FakeScheduler() {
    this(0);
  }

  /** Starts the clock at {@code startNanos} (any value, as {@link System#nanoTime()} may be). */
  public FakeScheduler(long startNanos) {
    this.now = startNanos;
  }

  @Override
  public long nanoTime() {
    return now;
  }

  @Override
  public Cancellable schedule(long delayNanos, Runnable task) {
    if (delayNanos < 0) {
      throw new IllegalArgumentException("negative delay: " + delayNanos);
    }
    Task scheduled = new Task(now + delayNanos, nextSequence++, task);
    queue.add(scheduled);
    return () -> {
      if (!scheduled.done) {
        scheduled.done = true;
        queue.remove(scheduled);
      }
    };
  }

  /** Moves the clock forward by {@code by}, running every task that falls due on the way. */
  public void advance(Duration by) {
    advanceNanos(by.toNanos());
  }

  /**
   * Moves the clock forward by {@code nanos}. Each task runs with the clock set to its due time, so
   * a task that reads {@link #nanoTime()} sees the instant it was meant to run at; afterwards the
   * clock reads the end of the window.
   */
  public void advanceNanos(long nanos) {
    if (nanos < 0) {
      throw new IllegalArgumentException("time does not go backwards: " + nanos);
    }
    long end = now + nanos;
    while (!queue.isEmpty() && queue.peek().dueNanos <= end) {
      Task task = queue.poll();
      now = Math.max(now, task.dueNanos);
      task.done = true;
      tasksRun++;
      task.runnable.run();
    }
    now = end;
  }

  /**
   * Moves the clock to the instant {@code nanos} (now or later), running every task that falls due
   * on the way: for replaying a recorded stream of timestamps, as the coalescing benchmark does.
   */
  public void advanceTo(long nanos) {
    if (nanos < now) {
      throw new IllegalArgumentException("time does not go backwards: " + nanos + " < " + now);
    }
    advanceNanos(nanos - now);
  }

  /**
   * Moves the clock forward by {@code by} without running anything, as if the context were busy
   * with one long task (a slow flush, say). Tasks that fell due meanwhile run on the next {@link
   * #advance}, in due order, late: the clock then reads later than their due time.
   */
  public void elapse(Duration by) {
    long nanos = by.toNanos();
    if (nanos < 0) {
      throw new IllegalArgumentException("time does not go backwards: " + by);
    }
    now += nanos;
  }

  /** Runs the tasks already due (delay 0) without moving the clock. */
  public void runDueTasks() {
    advanceNanos(0);
  }

  /** The tasks still to run, in the order they would run. */
  public List<PendingTask> pendingTasks() {
    List<Task> sorted = new ArrayList<>(queue);
    sorted.sort(queue.comparator());
    List<PendingTask> result = new ArrayList<>(sorted.size());
    for (Task task : sorted) {
      result.add(new PendingTask(task.dueNanos, task.sequence));
    }
    return result;
  }

  /** Number of tasks still to run. */
  public int pendingCount() {
    return queue.size();
  }

  /** Due time of the next task to run, or empty when none is pending. */
  public OptionalLong nextDueNanos() {
    return queue.isEmpty() ? OptionalLong.empty() : OptionalLong.of(queue.peek().dueNanos);
  }

  /** How many tasks have run since this scheduler was created. */
  public long tasksRun() {
    return tasksRun;
  }

  private static final class Task {
    final long dueNanos;
    final long sequence;
    final Runnable runnable;
    boolean done;

    Task(long dueNanos, long sequence, Runnable runnable) {
      this.dueNanos = dueNanos;
      this.sequence = sequence;
      this.runnable = runnable;
    }
  }
}
