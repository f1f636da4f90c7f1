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
    Outcome outcome = gate(coalescing(950, 243_000), serving(239, 168), memory(110));

    assertThat(outcome.exit).isZero();
    assertThat(outcome.text).contains("ratio gate: passed").doesNotContain("BROKEN");
  }

  @Test
  void aCoalescerThatLostItsGainFails() {
    Outcome outcome = gate(coalescing(20_000, 243_000), serving(239, 168), memory(110));

    assertThat(outcome.exit).isEqualTo(1);
    assertThat(outcome.text).contains("coalescing").contains("BROKEN");
  }

  @Test
  void aResolveThatCostsMoreThanTwiceTheFloorFails() {
    Outcome outcome = gate(coalescing(950, 243_000), serving(400, 168), memory(110));

    assertThat(outcome.exit).isEqualTo(1);
    assertThat(outcome.text).contains("Resolve p50").contains("BROKEN");
  }

  @Test
  void aTableOverTheMemoryTargetByMoreThanTenPercentFails() {
    Outcome outcome = gate(coalescing(950, 243_000), serving(239, 168), memory(133));

    assertThat(outcome.exit).isEqualTo(1);
    assertThat(outcome.text).contains("bytes per endpoint").contains("BROKEN");
  }

  @Test
  void aMissingBenchmarkFailsRatherThanPassingBySilence() {
    Outcome outcome = gate(coalescing(950, 243_000), memory(110));

    assertThat(outcome.exit).isEqualTo(1);
    assertThat(outcome.text).contains("MISSING: no ServingFloorBenchmark");
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

  private static List<String> serving(double resolveP50, double noopP50) {
    return List.of(
        sample("ServingFloorBenchmark.resolve", resolveP50),
        sample("ServingFloorBenchmark.noop", noopP50));
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
