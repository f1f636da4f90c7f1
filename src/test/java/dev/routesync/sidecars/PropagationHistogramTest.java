package dev.routesync.sidecars;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Quantiles interpolated in buckets, as Prometheus's histogram_quantile reads the export. */
class PropagationHistogramTest {

  @Test
  void noSampleHasNoQuantile() {
    assertThat(new PropagationHistogram().snapshot().quantileMillis(0.5)).isEqualTo(-1);
  }

  @Test
  void quantilesFallInTheBucketsOfTheirSamples() {
    PropagationHistogram histogram = new PropagationHistogram();
    for (int i = 0; i < 98; i++) {
      histogram.record(180); // (100, 250]
    }
    histogram.record(1_500); // (1000, 2000]
    histogram.record(2_500); // (2000, 3000]
    PropagationHistogram.Snapshot snapshot = histogram.snapshot();
    assertThat(snapshot.count()).isEqualTo(100);
    assertThat(snapshot.quantileMillis(0.5)).isBetween(100L, 250L);
    assertThat(snapshot.quantileMillis(0.99)).isBetween(1_000L, 2_000L);
    assertThat(snapshot.overflowed(0.99)).isFalse();
  }

  @Test
  void aP99PastTheLastBucketSaysSo() {
    PropagationHistogram histogram = new PropagationHistogram();
    histogram.record(-5); // clock skew: counted as 0
    for (int i = 0; i < 10; i++) {
      histogram.record(120_000);
    }
    PropagationHistogram.Snapshot snapshot = histogram.snapshot();
    assertThat(snapshot.quantileMillis(0.99)).isEqualTo(60_000);
    assertThat(snapshot.overflowed(0.99)).isTrue();
    assertThat(snapshot.overflowed(0.05)).isFalse();
  }
}
