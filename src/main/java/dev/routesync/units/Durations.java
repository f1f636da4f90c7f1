package dev.routesync.units;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The duration syntax of flags: {@code 0}, {@code 250ms}, {@code 10s}, {@code 5m}, {@code 1h}; and
 * the one-line range errors every duration flag gives.
 */
public final class Durations {

  private static final Pattern FORMAT = Pattern.compile("(\\d{1,9})(ms|s|m|h)");

  private Durations() {}

  public static Duration parse(String text) {
    String trimmed = text == null ? "" : text.trim();
    if (trimmed.equals("0")) {
      return Duration.ZERO;
    }
    Matcher matcher = FORMAT.matcher(trimmed);
    if (!matcher.matches()) {
      throw new IllegalArgumentException(
          "'" + text + "' is not a duration (expected e.g. 0, 250ms, 10s, 5m, 1h)");
    }
    long amount = Long.parseLong(matcher.group(1));
    return switch (matcher.group(2)) {
      case "ms" -> Duration.ofMillis(amount);
      case "s" -> Duration.ofSeconds(amount);
      case "m" -> Duration.ofMinutes(amount);
      default -> Duration.ofHours(amount);
    };
  }

  /** {@link #format(Duration)} of a count of nanoseconds (to the millisecond). */
  public static String formatNanos(long nanos) {
    return format(Duration.ofNanos(nanos));
  }

  /**
   * The inverse of {@link #parse}, and the one way a duration is written in the agent's output
   * (logs, errors, help): the largest unit that is exact, as the flags take it ({@code 10s}, {@code
   * 500ms}, {@code 17572ms}), never ISO-8601 ({@code PT10S}).
   */
  public static String format(Duration duration) {
    long millis = duration.toMillis();
    if (millis == 0) {
      return "0";
    }
    if (millis % 3_600_000 == 0) {
      return millis / 3_600_000 + "h";
    }
    if (millis % 60_000 == 0) {
      return millis / 60_000 + "m";
    }
    if (millis % 1000 == 0) {
      return millis / 1000 + "s";
    }
    return millis + "ms";
  }

  /**
   * {@code value}, if within {@code min..max}; else a one-line error naming the flag and the range.
   *
   * @throws IllegalArgumentException for a value out of range
   */
  public static Duration requireWithin(String flag, Duration value, Duration min, Duration max) {
    if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
      throw new IllegalArgumentException(
          flag
              + " must be between "
              + format(min)
              + " and "
              + format(max)
              + ", got "
              + format(value));
    }
    return value;
  }

  /** As {@link #requireWithin}, where {@code 0} also means off. */
  public static Duration requireOffOrWithin(
      String flag, Duration value, Duration min, Duration max) {
    if (!value.isZero() && (value.compareTo(min) < 0 || value.compareTo(max) > 0)) {
      throw new IllegalArgumentException(
          flag
              + " must be 0 (off) or between "
              + format(min)
              + " and "
              + format(max)
              + ", got "
              + format(value));
    }
    return value;
  }
}
