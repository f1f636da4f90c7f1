package dev.routesync.sidecars;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Counts of propagation latencies (trigger time to a client's ACK) in fixed buckets, for the
 * agent's own answer ({@code GET /v1/latency}); the same buckets as the exported histogram.
 * Recording is a binary search and an atomic add: no allocation, any thread. Quantiles are
 * interpolated within a bucket, as Prometheus's {@code histogram_quantile} does.
 */
public final class PropagationHistogram {

  /** Upper bounds in milliseconds; one more bucket above the last holds the rest. */
  static final long[] BOUNDS_MILLIS = {
    5, 10, 25, 50, 100, 250, 500, 1_000, 2_000, 3_000, 5_000, 10_000, 30_000, 60_000
  };

  private final AtomicLongArray counts = new AtomicLongArray(BOUNDS_MILLIS.length + 1);

  /** The upper bounds of the buckets, in milliseconds (for the exported histogram). */
  public static long[] boundsMillis() {
    return BOUNDS_MILLIS.clone();
  }

  public void record(long millis) {
    long value = Math.max(0, millis);
    int low = 0;
    int high = BOUNDS_MILLIS.length;
    while (low < high) {
      int middle = (low + high) >>> 1;
      if (BOUNDS_MILLIS[middle] < value) {
        low = middle + 1;
      } else {
        high = middle;
      }
    }
    counts.incrementAndGet(low);
  }

  /** A consistent-enough copy: each bucket read once. */
  public Snapshot snapshot() {
    long[] copy = new long[counts.length()];
    for (int i = 0; i < copy.length; i++) {
      copy[i] = counts.get(i);
    }
    return new Snapshot(copy);
  }

  /** The counts at one moment. */
  public static final class Snapshot {
    private final long[] counts;
    private final long total;

    Snapshot(long[] counts) {
      this.counts = counts;
      long sum = 0;
      for (long count : counts) {
        sum += count;
      }
      this.total = sum;
    }

    public long count() {
      return total;
    }

    /**
     * The {@code q} quantile in milliseconds, interpolated in its bucket; -1 with no sample. One
     * past the last bound reads as that bound (see {@link #overflowed}).
     */
    public long quantileMillis(double q) {
      if (total == 0) {
        return -1;
      }
      double rank = q * total;
      long seen = 0;
      for (int i = 0; i < counts.length; i++) {
        if (counts[i] == 0) {
          continue;
        }
        if (seen + counts[i] >= rank) {
          if (i == BOUNDS_MILLIS.length) {
            return BOUNDS_MILLIS[BOUNDS_MILLIS.length - 1];
          }
          long lower = i == 0 ? 0 : BOUNDS_MILLIS[i - 1];
          double within = (rank - seen) / counts[i];
          return Math.round(lower + within * (BOUNDS_MILLIS[i] - lower));
        }
        seen += counts[i];
      }
      return BOUNDS_MILLIS[BOUNDS_MILLIS.length - 1];
    }

    /** Whether the {@code q} quantile lies past the last bound (it is then at least that). */
    public boolean overflowed(double q) {
      return total > 0 && (total - counts[counts.length - 1]) < q * total;
    }
  }
}
