package dev.routesync.bench;

import dev.routesync.table.RoutingTable;
import java.util.concurrent.TimeUnit;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * Flush cost against table size: publishing a batch of {@code k} changed services into a table of
 * {@code n} services. The target (issue 12) is that at k = 100 the cost at n = 100,000 is at most
 * 1.5x the cost at n = 1,000, in three repeated runs.
 *
 * <p>Each invocation publishes k real changes (alternating two endpoint generations, so nothing is
 * an idempotent no-op) into the current table and keeps the new version, exactly as the reconciler
 * does. The table's services live in a hash trie (see {@code ServiceIndex}); in the sorted tree it
 * replaced, each changed Service walked ~17 levels at n = 100k, comparing two Strings per level on
 * nodes that no longer fit a shared cache, and the ratio swung from 1.6x to 7x with the machine's
 * load. TableMapBenchmark compares the candidate maps alone.
 *
 * <p>Defaults: the k = 100 row, three forks (each builds its own table, so one unlucky heap layout
 * does not decide the figure) with a pinned 1 GiB heap, about 2 minutes:
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar FlushCostBenchmark -prof gc -prof dev.routesync.bench.CpuTimeProfiler
 * java -jar benchmarks/target/benchmarks.jar FlushCostBenchmark -p k=1,100,1000   # every row
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 4, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
    value = 3,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class FlushCostBenchmark {

  @Param({"1000", "10000", "100000"})
  int n;

  @Param({"100"})
  int k;

  /** Endpoints per service; most Services are small. */
  @Param({"5"})
  int endpointsPerService;

  private FlushFixture fixture;

  @Setup(Level.Trial)
  public void setUp() {
    fixture = new FlushFixture(n, k, endpointsPerService);
  }

  @Benchmark
  public RoutingTable flush() {
    return fixture.flush();
  }
}
