package dev.routesync.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class RatioGateTest {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  @Test
  void healthyFiguresPass() {
    Outcome outcome =
        gate(coalescing(950, 243_000), serving(1.35, 1.45), memory(110), flush(1.3, 1.32));

    assertThat(outcome.exit).isZero();
    assertThat(outcome.text).contains("ratio gate: passed").doesNotContain("BROKEN");
  }

  @Test
  void aCoalescerThatLostItsGainFails() {
    Outcome outcome =
        gate(coalescing(20_000, 243_000), serving(1.35, 1.45), memory(110), flush(1.3, 1.32));

    assertThat(outcome.exit).isEqualTo(1);
    assertThat(outcome.text).contains("coalescing").contains("BROKEN");
  }

  @Test
  void aResolveThatCostsMoreThanTwiceTheFloorFails() {
    Outcome outcome =
        gate(coalescing(950, 243_000), serving(2.3, 2.5), memory(110), flush(1.3, 1.32));

    assertThat(outcome.exit).isEqualTo(1);
    assertThat(outcome.text).contains("Resolve/no-op p50").contains("BROKEN");
  }

  @Test
  void loadThatChangesBetweenTheSequentialMethodsDoesNotBreakTheGate() {
    // The run that read 2.03x: both calls ~10x slower than idle, more so while Resolve ran. The
    // interleaved pairs, under the same load for both calls, still measure 1.3x to 1.4x.
    List<String> serving = new ArrayList<>(serving(1.3, 1.4));
    serving.add(sample("ServingFloorBenchmark.resolve", 2_030));
    serving.add(sample("ServingFloorBenchmark.noop", 1_000));

    Outcome outcome = gate(coalescing(950, 243_000), serving, memory(110), flush(1.3, 1.32));

    assertThat(outcome.exit).isZero();
    assertThat(outcome.text).contains("interleaved").doesNotContain("BROKEN");
  }

  @Test
  void sequentialFiguresAloneDoNotPassTheServingCheck() {
    List<String> sequential =
        List.of(
            sample("ServingFloorBenchmark.resolve", 239),
            sample("ServingFloorBenchmark.noop", 168));

    Outcome outcome = gate(coalescing(950, 243_000), sequential, memory(110), flush(1.3, 1.32));

    assertThat(outcome.exit).isEqualTo(1);
    assertThat(outcome.text).contains("MISSING: no ServingFloorBenchmark");
  }

  @Test
  void aTableOverTheMemoryTargetByMoreThanTenPercentFails() {
    Outcome outcome =
        gate(coalescing(950, 243_000), serving(1.35, 1.45), memory(133), flush(1.3, 1.32));

    assertThat(outcome.exit).isEqualTo(1);
    assertThat(outcome.text).contains("bytes per endpoint").contains("BROKEN");
  }

  @Test
  void aMissingBenchmarkFailsRatherThanPassingBySilence() {
    Outcome outcome = gate(coalescing(950, 243_000), memory(110), flush(1.3, 1.32));

    assertThat(outcome.exit).isEqualTo(1);
    assertThat(outcome.text).contains("MISSING: no ServingFloorBenchmark");
  }

  @Test
  void aFlushWhoseCostGrowsWithTheTableFails() {
    // The sorted tree the table left measured 7x; one slow iteration of three does not decide it.
    Outcome slow =
        gate(coalescing(950, 243_000), serving(1.35, 1.45), memory(110), flush(2.4, 7.0));
    Outcome oneBadIteration =
        gate(coalescing(950, 243_000), serving(1.35, 1.45), memory(110), flush(1.3, 1.31, 3.5));

    assertThat(slow.exit).isEqualTo(1);
    assertThat(slow.text).contains("flush: 100k/1k").contains("BROKEN");
    assertThat(oneBadIteration.exit).isZero();
  }

  @Test
  void withoutThePairedFlushTheGateFails() {
    Outcome outcome = gate(coalescing(950, 243_000), serving(1.35, 1.45), memory(110));

    assertThat(outcome.exit).isEqualTo(1);
    assertThat(outcome.text).contains("MISSING: no FlushRatioBenchmark");
  }

  private record Outcome(int exit, String text) {}

  private static Outcome gate(List<String>... files) {
    List<JsonNode> results = new ArrayList<>();
    for (List<String> file : files) {
      file.forEach(result -> results.add(JSON.readTree(result)));
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    int exit = new RatioGate(results).run(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    return new Outcome(exit, bytes.toString(StandardCharsets.UTF_8));
  }

  private static List<String> coalescing(double oursNanos, double naiveNanos) {
    return List.of(
        avgt("CoalescingBenchmark.coalescer", oursNanos),
        avgt("CoalescingBenchmark.naiveCopyPerEvent", naiveNanos));
  }

  /**
   * {@code ServingFloorBenchmark.interleaved} over two iterations, as JMH writes it: the
   * per-iteration ratios in {@code rawData}, their median in {@code scorePercentiles}, and their
   * <em>sum</em> in {@code score} (an {@code EVENTS} counter), which the gate must not read.
   */
  private static List<String> serving(double firstIteration, double secondIteration) {
    double median = (firstIteration + secondIteration) / 2;
    return List.of(
        "{\"benchmark\":\"dev.routesync.bench.ServingFloorBenchmark.interleaved\","
            + "\"primaryMetric\":{\"score\":380.0,\"scorePercentiles\":{\"50.0\":370.0}},"
            + "\"secondaryMetrics\":{\"resolveOverNoop\":{\"score\":"
            + (firstIteration + secondIteration)
            + ",\"scorePercentiles\":{\"0.0\":"
            + Math.min(firstIteration, secondIteration)
            + ",\"50.0\":"
            + median
            + ",\"100.0\":"
            + Math.max(firstIteration, secondIteration)
            + "},\"rawData\":[["
            + firstIteration
            + ","
            + secondIteration
            + "]]}}}");
  }

  /**
   * {@code FlushRatioBenchmark.pair}'s per-iteration ratios, as JMH writes an {@code EVENTS}
   * counter: the sum in {@code score}, the median in {@code scorePercentiles}.
   */
  private static List<String> flush(double... iterations) {
    double[] sorted = iterations.clone();
    java.util.Arrays.sort(sorted);
    double median =
        sorted.length % 2 == 1
            ? sorted[sorted.length / 2]
            : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
    StringBuilder raw = new StringBuilder();
    double sum = 0;
    for (double ratio : iterations) {
      raw.append(raw.length() == 0 ? "" : ",").append(ratio);
      sum += ratio;
    }
    return List.of(
        "{\"benchmark\":\"dev.routesync.bench.FlushRatioBenchmark.pair\","
            + "\"primaryMetric\":{\"score\":20.0},"
            + "\"secondaryMetrics\":{\"largeOverSmall\":{\"score\":"
            + sum
            + ",\"scorePercentiles\":{\"50.0\":"
            + median
            + "},\"rawData\":[["
            + raw
            + "]]}}}");
  }

  private static List<String> memory(double bytesPerEndpoint) {
    return List.of(
        "{\"benchmark\":\"dev.routesync.bench.MemoryBenchmark.retainedSize\","
            + "\"primaryMetric\":{\"score\":4800.0},"
            + "\"secondaryMetrics\":{\"bytesPerEndpoint\":{\"score\":"
            + bytesPerEndpoint
            + "}}}");
  }

  private static String avgt(String benchmark, double score) {
    return "{\"benchmark\":\"dev.routesync.bench."
        + benchmark
        + "\",\"primaryMetric\":{\"score\":"
        + score
        + "}}";
  }

  private static String sample(String benchmark, double p50) {
    return "{\"benchmark\":\"dev.routesync.bench."
        + benchmark
        + "\",\"primaryMetric\":{\"score\":"
        + (p50 * 1.2)
        + ",\"scorePercentiles\":{\"0.0\":1.0,\"50.0\":"
        + p50
        + "}}}";
  }
}
