package dev.routesync.kube.events;

/**
 * {@code capacity} tokens, one more every {@code refillNanos}, never more than {@code capacity}. On
 * an injected monotonic clock, so tests move time instead of sleeping.
 *
 * <p>Not thread-safe: the recorder uses it under its lock.
 */
final class TokenBucket {

  private final long capacity;
  private final long refillNanos;
  private long tokens;
  private long refilledAt;

  TokenBucket(int capacity, long refillNanos, long nowNanos) {
    if (capacity < 1 || refillNanos < 1) {
      throw new IllegalArgumentException("capacity and refill must be positive");
    }
    this.capacity = capacity;
    this.refillNanos = refillNanos;
    this.tokens = capacity;
    this.refilledAt = nowNanos;
  }

  /** Takes a token if one is left at {@code nowNanos}. */
  boolean tryTake(long nowNanos) {
    long elapsed = nowNanos - refilledAt;
    if (elapsed >= refillNanos) {
      long earned = elapsed / refillNanos;
      if (earned >= capacity - tokens) {
        // Full: time spent full earns nothing.
        tokens = capacity;
        refilledAt = nowNanos;
      } else {
        tokens += earned;
        refilledAt += earned * refillNanos;
      }
    }
    if (tokens == 0) {
      return false;
    }
    tokens--;
    return true;
  }
}
