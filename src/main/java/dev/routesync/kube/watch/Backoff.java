package dev.routesync.kube.watch;

import java.time.Duration;
import java.util.Random;

/**
 * How long to wait before retrying a failed list or watch: the n-th consecutive failure waits
 * uniformly in {@code [d/2, d]}, where {@code d} doubles from {@code min} and is capped at {@code
 * max}. The jitter matters because a DaemonSet's agents all lose the API server at once; without it
 * they would all relist at the same instants when it comes back (fabric8's own reconnect backoff
 * has none).
 *
 * <p>Threading: one thread (the sync context), like the {@link java.util.Random} draws it makes.
 */
final class Backoff {

  // Past this many doublings the ceiling is max for any sane min; also keeps the counter bounded.
  private static final int MAX_DOUBLINGS = 62;

  private final long minNanos;
  private final long maxNanos;
  private final Random random;
  private int failures;

  Backoff(Duration min, Duration max, Random random) {
    this.minNanos = min.toNanos();
    this.maxNanos = max.toNanos();
    this.random = random;
    if (minNanos <= 0 || maxNanos < minNanos) {
      throw new IllegalArgumentException("backoff must satisfy 0 < min <= max");
    }
  }

  /** The delay before the retry of one more consecutive failure. */
  long nextDelayNanos() {
    long delay = delayNanos(failures);
    failures = Math.min(failures + 1, MAX_DOUBLINGS);
    return delay;
  }

  /** A success: the next failure waits about {@code min} again. */
  void reset() {
    failures = 0;
  }

  /** Consecutive failures since the last {@link #reset}. */
  int failures() {
    return failures;
  }

  private long delayNanos(int attempt) {
    // min << attempt without overflow: shifting past the leading zeros would wrap around.
    boolean overflows = attempt >= Long.numberOfLeadingZeros(minNanos) - 1;
    long ceiling = overflows ? maxNanos : Math.min(maxNanos, minNanos << attempt);
    return ceiling / 2 + (long) (random.nextDouble() * (ceiling / 2));
  }
}
