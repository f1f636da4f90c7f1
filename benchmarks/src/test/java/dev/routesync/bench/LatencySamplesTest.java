package dev.routesync.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class LatencySamplesTest {

  @Test
  void theMedianOfAnOddCountIsTheMiddleSample() {
    LatencySamples samples = new LatencySamples(2);
    for (long nanos : new long[] {900, 100, 500, 300, 700}) {
      samples.add(nanos);
    }

    assertThat(samples.count()).isEqualTo(5);
    assertThat(samples.medianNanos()).isEqualTo(500);
  }

  @Test
  void theMedianOfAnEvenCountIsTheMeanOfTheMiddleTwo() {
    LatencySamples samples = new LatencySamples(4);
    for (long nanos : new long[] {400, 100, 300, 200}) {
      samples.add(nanos);
    }

    assertThat(samples.medianNanos()).isEqualTo(250);
  }

  @Test
  void clearingStartsTheNextIterationEmpty() {
    LatencySamples samples = new LatencySamples(1);
    samples.add(1_000);
    samples.clear();
    samples.add(7);

    assertThat(samples.count()).isEqualTo(1);
    assertThat(samples.medianNanos()).isEqualTo(7);
  }

  @Test
  void theMeanKeepsTheOutlierTheMedianLeavesOut() {
    LatencySamples samples = new LatencySamples(2);
    for (long nanos : new long[] {100, 100, 100, 9_700}) {
      samples.add(nanos);
    }

    assertThat(samples.meanNanos()).isEqualTo(2_500);
    assertThat(samples.medianNanos()).isEqualTo(100);
  }

  @Test
  void anIterationWithoutSamplesHasNoMedianAndNoMean() {
    assertThatThrownBy(() -> new LatencySamples(1).medianNanos())
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> new LatencySamples(1).meanNanos())
        .isInstanceOf(IllegalStateException.class);
  }
}
