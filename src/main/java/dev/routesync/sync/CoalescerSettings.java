package dev.routesync.sync;

import dev.routesync.units.Durations;
import java.time.Duration;
import java.util.Objects;

/**
 * How the coalescer batches bursts. Each value is checked here, once, whether it comes from a flag
 * or from code; the messages name the flag ({@code --debounce}), because that is what an operator
 * can change.
 *
 * @param debounce quiet period: a batch is flushed once no change arrived for this long
 * @param maxDelay cap: a batch is flushed at the latest this long after its first change
 * @param maxBatch cap: a batch is flushed at once when this many services are dirty
 */
public record CoalescerSettings(Duration debounce, Duration maxDelay, int maxBatch) {

  // Defaults as the flags write them: the flags' defaultValue and the Durations below both read
  // these, so --help cannot disagree with the record.
  public static final String DEFAULT_DEBOUNCE_TEXT = "50ms";
  public static final String DEFAULT_MAX_DELAY_TEXT = "500ms";
  public static final int DEFAULT_MAX_BATCH = 5000;

  public static final Duration DEFAULT_DEBOUNCE = Durations.parse(DEFAULT_DEBOUNCE_TEXT);
  public static final Duration DEFAULT_MAX_DELAY = Durations.parse(DEFAULT_MAX_DELAY_TEXT);

  // The sane ranges (docs/configuration.md says the same). Beyond them a value is a
  // typo or a unit mistake, and hours of debounce overflowed the coalescer's nanosecond arithmetic.
  public static final Duration MAX_DEBOUNCE = Duration.ofSeconds(10);
  public static final Duration MAX_MAX_DELAY = Duration.ofMinutes(1);
  public static final int MAX_MAX_BATCH = 1_000_000;

  public CoalescerSettings {
    Objects.requireNonNull(debounce, "debounce");
    Objects.requireNonNull(maxDelay, "maxDelay");
    Durations.requireWithin("--debounce", debounce, Duration.ZERO, MAX_DEBOUNCE);
    Durations.requireWithin("--max-delay", maxDelay, Duration.ZERO, MAX_MAX_DELAY);
    if (maxDelay.compareTo(debounce) < 0) {
      throw new IllegalArgumentException(
          "--max-delay ("
              + Durations.format(maxDelay)
              + ") must be at least --debounce ("
              + Durations.format(debounce)
              + ")");
    }
    if (maxBatch < 1 || maxBatch > MAX_MAX_BATCH) {
      throw new IllegalArgumentException(
          "--max-batch must be between 1 and " + MAX_MAX_BATCH + ", got " + maxBatch);
    }
  }

  public static CoalescerSettings defaults() {
    return new CoalescerSettings(DEFAULT_DEBOUNCE, DEFAULT_MAX_DELAY, DEFAULT_MAX_BATCH);
  }
}
