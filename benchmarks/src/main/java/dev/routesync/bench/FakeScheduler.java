package dev.routesync.bench;

import dev.routesync.sync.Scheduler;
import java.util.Comparator;
import java.util.PriorityQueue;

/**
 * A {@link Scheduler} on a simulated clock, for benchmarks that replay recorded time: a trimmed
 * copy of the test suite's {@code FakeScheduler}. Time only moves when {@link #advanceTo} is
 * called; tasks run on the calling thread, in due-time order (ties in scheduling order), each with
 * the clock set to its due time. Not thread-safe, like the single context it stands in for.
 */
final class FakeScheduler implements Scheduler {

  private final PriorityQueue<Task> queue =
      new PriorityQueue<>(
          Comparator.comparingLong((Task t) -> t.dueNanos).thenComparingLong(t -> t.sequence));
  private long now;
  private long nextSequence;

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

  /** Moves the clock to {@code nanos}, running every task that falls due on the way. */
  void advanceTo(long nanos) {
    if (nanos < now) {
      throw new IllegalArgumentException("time does not go backwards: " + nanos + " < " + now);
    }
    while (!queue.isEmpty() && queue.peek().dueNanos <= nanos) {
      Task task = queue.poll();
      now = Math.max(now, task.dueNanos);
      task.done = true;
      task.runnable.run();
    }
    now = nanos;
  }

  /** Number of tasks still to run. */
  int pendingCount() {
    return queue.size();
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
