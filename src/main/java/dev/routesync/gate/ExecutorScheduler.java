package dev.routesync.gate;

import dev.routesync.sync.Scheduler;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The gate's one thread: its timers and every evaluation run here, in order, so {@link GateRun}
 * needs no locks. A daemon thread, so a stuck call can never keep the JVM alive.
 */
final class ExecutorScheduler implements Scheduler, AutoCloseable {

  private final ScheduledExecutorService executor =
      Executors.newSingleThreadScheduledExecutor(
          task -> {
            Thread thread = new Thread(task, "routesync-gate");
            thread.setDaemon(true);
            return thread;
          });

  @Override
  public long nanoTime() {
    return System.nanoTime();
  }

  @Override
  public Cancellable schedule(long delayNanos, Runnable task) {
    ScheduledFuture<?> future = executor.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
    return () -> future.cancel(false);
  }

  /** Runs {@code task} on the gate's thread as soon as it is free. */
  void execute(Runnable task) {
    executor.execute(task);
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }
}
