package dev.routesync.sync;

import java.time.Duration;
import java.util.Objects;

/**
 * How the coalescer batches bursts.
 *
 * @param debounce quiet period: a batch is flushed once no change arrived for this long
 * @param maxDelay cap: a batch is flushed at the latest this long after its first change
 * @param maxBatch cap: a batch is flushed at once when this many services are dirty
 */
public record CoalescerSettings(Duration debounce, Duration maxDelay, int maxBatch) {

  public static final Duration DEFAULT_DEBOUNCE = Duration.ofMillis(50);
  public static final Duration DEFAULT_MAX_DELAY = Duration.ofMillis(500);
  public static final int DEFAULT_MAX_BATCH = 5000;

  public CoalescerSettings {
    Objects.requireNonNull(debounce, "debounce");
    Objects.requireNonNull(maxDelay, "maxDelay");
    if (debounce.isNegative()) {
      throw new IllegalArgumentException("debounce must not be negative: " + debounce);
    }
    if (maxDelay.compareTo(debounce) < 0) {
      throw new IllegalArgumentException(
          "max-delay (" + maxDelay + ") must be at least debounce (" + debounce + ")");
    }
    if (maxBatch < 1) {
      throw new IllegalArgumentException("max-batch must be >= 1, got " + maxBatch);
    }
  }

  public static CoalescerSettings defaults() {
    return new CoalescerSettings(DEFAULT_DEBOUNCE, DEFAULT_MAX_DELAY, DEFAULT_MAX_BATCH);
  }
}
