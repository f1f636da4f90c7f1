package dev.routesync.sync;

/**
 * Time and timers for code that runs on one context. Injected so tests drive a fake clock and never
 * sleep (the timer is injected "for testing", as in kube-proxy's bounded frequency runner).
 *
 * <p>Contract: tasks run on the same single thread (or context) as the code that scheduled them.
 */
public interface Scheduler {

  /** Monotonic time in nanoseconds. */
  long nanoTime();

  /** Runs {@code task} once after {@code delayNanos}; the returned handle cancels it. */
  Cancellable schedule(long delayNanos, Runnable task);

  /** A scheduled task that may still be cancelled. */
  @FunctionalInterface
  interface Cancellable {
    /** Cancels the task if it has not run yet; harmless otherwise. */
    void cancel();
  }
}
