package dev.routesync.state;

/**
 * When the next state write is due. A write costs the whole table (it is one checksummed file), not
 * what changed, so at cluster scale a fixed period would have the writer take a fixed share of a
 * core for as long as churn lasts: about 0.1 s of CPU for 150,000 endpoints on C1, a second apart.
 * Writes are spaced by {@code --state-flush} or by {@link #SPACING} times the last write's own
 * duration, whichever is longer, so the writer stays under 1/{@value #SPACING} of a core however
 * large the table. A small table writes in milliseconds and keeps {@code --state-flush}.
 *
 * @param flushNanos {@code --state-flush}
 */
record WritePacing(long flushNanos) {

  /** A write is followed by at least this many times its duration without one. */
  static final int SPACING = 20;

  /**
   * Nanoseconds from {@code nowNanos} until the next write is due.
   *
   * @param lastStartNanos when the last write started
   * @param lastDurationNanos how long it took
   */
  long delayNanos(long lastStartNanos, long lastDurationNanos, long nowNanos) {
    long gap = Math.max(flushNanos, SPACING * Math.max(0, lastDurationNanos));
    return Math.max(0, lastStartNanos + gap - nowNanos);
  }
}
