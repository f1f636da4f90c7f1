package dev.routesync.bench;

import java.util.Arrays;

/**
 * Every latency of one benchmark iteration, in nanoseconds, for an exact median at its end: a
 * growable {@code long[]} (HdrHistogram is not on the benchmarks' classpath, and a 1 to 5 s
 * iteration of ~150 µs calls keeps a few tens of thousands at most). Sized up front so that growing
 * it rarely allocates inside the measured loop. One thread only.
 */
final class LatencySamples {

  private long[] nanos;
  private int count;

  LatencySamples(int capacity) {
    nanos = new long[capacity];
  }

  void add(long latencyNanos) {
    if (count == nanos.length) {
      nanos = Arrays.copyOf(nanos, count * 2);
    }
    nanos[count++] = latencyNanos;
  }

  int count() {
    return count;
  }

  /** The mean. */
  double meanNanos() {
    if (count == 0) {
      throw new IllegalStateException("no samples");
    }
    long sum = 0;
    for (int i = 0; i < count; i++) {
      sum += nanos[i];
    }
    return (double) sum / count;
  }

  /** The median (the mean of the middle two for an even count); sorts the samples in place. */
  double medianNanos() {
    if (count == 0) {
      throw new IllegalStateException("no samples");
    }
    Arrays.sort(nanos, 0, count);
    int middle = count / 2;
    return count % 2 == 1 ? nanos[middle] : (nanos[middle - 1] + nanos[middle]) / 2.0;
  }

  void clear() {
    count = 0;
  }
}
