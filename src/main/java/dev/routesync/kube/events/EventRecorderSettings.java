package dev.routesync.kube.events;

import java.time.Duration;
import java.util.Objects;

/**
 * How much the recorder writes and remembers.
 *
 * @param burst Event writes (creates and series patches) allowed at once, shared by all keys
 * @param refillEvery one more write is allowed after each such period, up to {@code burst}
 * @param seriesInterval at most one write per key in this period; repeats in between are counted
 *     locally and folded into the next series patch (client-go's events/v1 broadcaster patches a
 *     series on a heartbeat too, instead of on every repeat)
 * @param forgetAfter a key not observed for this long is forgotten (its next observation is a new
 *     Event; if the old one still exists, its series is patched instead). The API server's default
 *     {@code --event-ttl} is one hour: remembering that long keeps the count of a slow series
 * @param maxKeys the most keys remembered; past it, the least recently observed is forgotten
 * @param queueCapacity writes waiting for the worker thread; past it, writes are dropped
 * @param sweepEvery how often due series patches are sent and old keys forgotten
 */
public record EventRecorderSettings(
    int burst,
    Duration refillEvery,
    Duration seriesInterval,
    Duration forgetAfter,
    int maxKeys,
    int queueCapacity,
    Duration sweepEvery) {

  /**
   * Burst 25, then one write per 10 s (the spam filter of client-go's core/v1 recorder allows a
   * burst of 25 per object; an agent with 110 pods at 6 writes a minute cannot flood the API
   * server), a series patched at most every 5 minutes, 4,096 keys for up to an hour, 256 queued
   * writes, a sweep every 10 s.
   */
  public static EventRecorderSettings defaults() {
    return new EventRecorderSettings(
        25,
        Duration.ofSeconds(10),
        Duration.ofMinutes(5),
        Duration.ofHours(1),
        4096,
        256,
        Duration.ofSeconds(10));
  }

  public EventRecorderSettings {
    Objects.requireNonNull(refillEvery, "refillEvery");
    Objects.requireNonNull(seriesInterval, "seriesInterval");
    Objects.requireNonNull(forgetAfter, "forgetAfter");
    Objects.requireNonNull(sweepEvery, "sweepEvery");
    if (burst < 1 || maxKeys < 1 || queueCapacity < 1) {
      throw new IllegalArgumentException(
          "burst, maxKeys and queueCapacity must be positive: "
              + burst
              + ", "
              + maxKeys
              + ", "
              + queueCapacity);
    }
    if (!positive(refillEvery) || !positive(seriesInterval) || !positive(sweepEvery)) {
      throw new IllegalArgumentException("refillEvery, seriesInterval and sweepEvery must be > 0");
    }
    if (forgetAfter.compareTo(seriesInterval) < 0) {
      throw new IllegalArgumentException(
          "forgetAfter ("
              + forgetAfter
              + ") must be at least seriesInterval ("
              + seriesInterval
              + ")");
    }
  }

  public EventRecorderSettings withBurst(int burst) {
    return new EventRecorderSettings(
        burst, refillEvery, seriesInterval, forgetAfter, maxKeys, queueCapacity, sweepEvery);
  }

  public EventRecorderSettings withMaxKeys(int maxKeys) {
    return new EventRecorderSettings(
        burst, refillEvery, seriesInterval, forgetAfter, maxKeys, queueCapacity, sweepEvery);
  }

  public EventRecorderSettings withQueueCapacity(int queueCapacity) {
    return new EventRecorderSettings(
        burst, refillEvery, seriesInterval, forgetAfter, maxKeys, queueCapacity, sweepEvery);
  }

  private static boolean positive(Duration d) {
    return !d.isNegative() && !d.isZero();
  }
}
