package dev.routesync.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Flush flatness measured side by side: the cost of a k = 100 flush into a table of {@code large}
 * Services over the same flush into a table of {@code small} Services, both tables in one JVM and
 * their flushes timed in pairs, back to back, alternating which goes first (issue 12, target 2).
 *
 * <p>Why pairs: {@link FlushCostBenchmark} measures each table size in its own forks, a minute or
 * more apart, and on this 2-core machine the load moves in between. Its k = 100 ratio read 1.35x
 * and 1.72x in runs a few minutes apart, on the same code, with each size's error as wide as the
 * difference being judged. A pair puts whatever the machine is doing on both flushes of a pair, so
 * the ratio of the two medians measures the table's size, not the moment.
 *
 * <p>What it does not hide: each flush publishes real changes into its own table and keeps the new
 * version, exactly as {@link FlushCostBenchmark} (one {@link FlushFixture} each). Between two
 * flushes of one table the other table's flush runs, so neither finds its nodes where its previous
 * flush left them in the first-level cache; in the agent, decoding and serving run between two
 * flushes too. The medians leave out the rare GC pause and preemption (both paid per allocated byte
 * or per second, not per flush); the means, reported beside them, keep them.
 *
 * <p>Figures per iteration, as secondary metrics ({@link Pairs}); read a run's figure from their
 * {@code scorePercentiles} or {@code rawData}, since JMH adds counters up over iterations for
 * {@code score}:
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar FlushRatioBenchmark -prof gc
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 4, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
    value = 3,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class FlushRatioBenchmark {

  @Param({"1000"})
  int small;

  @Param({"100000"})
  int large;

  @Param({"100"})
  int k;

  /** Endpoints per service, as {@link FlushCostBenchmark}. */
  @Param({"5"})
  int endpointsPerService;

  private FlushFixture smallTable;
  private FlushFixture largeTable;
  private boolean smallFirst;

  @Setup(Level.Trial)
  public void setUp() {
    smallTable = new FlushFixture(small, k, endpointsPerService);
    largeTable = new FlushFixture(large, k, endpointsPerService);
  }

  /** One pair: both flushes, each timed; the score is the pair's time. */
  @Benchmark
  public void pair(Pairs pairs, Blackhole blackhole) {
    boolean first = smallFirst;
    smallFirst = !first;
    if (first) {
      timed(smallTable, pairs.smallNanos, blackhole);
      timed(largeTable, pairs.largeNanos, blackhole);
    } else {
      timed(largeTable, pairs.largeNanos, blackhole);
      timed(smallTable, pairs.smallNanos, blackhole);
    }
  }

  private static void timed(FlushFixture table, LatencySamples samples, Blackhole blackhole) {
    long start = System.nanoTime();
    blackhole.consume(table.flush());
    samples.add(System.nanoTime() - start);
  }

  /**
   * The pairs' figures, one set per iteration (JMH sums {@code EVENTS} counters over iterations for
   * their {@code score}: read {@code scorePercentiles} or {@code rawData}).
   */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.EVENTS)
  public static class Pairs {
    /** The large table's median flush over the small table's, this iteration. */
    public double largeOverSmall;

    /** The same ratio of the means, which keep GC pauses and preemptions. */
    public double largeOverSmallMean;

    public double smallP50Micros;
    public double largeP50Micros;
    public double smallMeanMicros;
    public double largeMeanMicros;
    public long pairs;

    // Not public: JMH reads public fields as counters. A 2 s iteration makes ~100,000 pairs.
    final LatencySamples smallNanos = new LatencySamples(1 << 18);
    final LatencySamples largeNanos = new LatencySamples(1 << 18);

    @Setup(Level.Iteration)
    public void clear() {
      smallNanos.clear();
      largeNanos.clear();
    }

    @TearDown(Level.Iteration)
    public void summarize() {
      double smallMean = smallNanos.meanNanos();
      double largeMean = largeNanos.meanNanos();
      double smallMedian = smallNanos.medianNanos();
      double largeMedian = largeNanos.medianNanos();
      largeOverSmall = largeMedian / smallMedian;
      largeOverSmallMean = largeMean / smallMean;
      smallP50Micros = smallMedian / 1_000;
      largeP50Micros = largeMedian / 1_000;
      smallMeanMicros = smallMean / 1_000;
      largeMeanMicros = largeMean / 1_000;
      pairs = Math.min(smallNanos.count(), largeNanos.count());
    }
  }
}
