package dev.routesync.bench;

import com.sun.management.OperatingSystemMXBean;
import java.lang.management.ManagementFactory;
import java.util.Collection;
import java.util.List;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * Process CPU time per operation, beside JMH's wall-clock score: {@code -prof
 * dev.routesync.bench.CpuTimeProfiler} adds {@code cpu.time.norm} (ns of CPU, all of the fork's
 * threads, GC included, per op).
 *
 * <p>Why: on a shared 2-core machine with a load of 10 to 20, a fork gets a fraction of a core and
 * the wall-clock score measures the scheduler, not the code (FlushCostBenchmark's n = 1k row swung
 * from 190 µs to 3,800 µs between runs). CPU time counts only the cycles this process used, so a
 * ratio between two rows of one run still says what the code costs; cache misses caused by
 * neighbours still count, as they should.
 */
public final class CpuTimeProfiler implements InternalProfiler {

  private final OperatingSystemMXBean os =
      (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
  private long cpuBefore;

  @Override
  public String getDescription() {
    return "process CPU time per operation";
  }

  @Override
  public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
    cpuBefore = os.getProcessCpuTime();
  }

  @Override
  public Collection<? extends Result> afterIteration(
      BenchmarkParams benchmarkParams, IterationParams iterationParams, IterationResult result) {
    long cpu = os.getProcessCpuTime() - cpuBefore;
    long ops = result.getMetadata().getAllOps();
    double perOp = ops == 0 ? Double.NaN : (double) cpu / ops;
    return List.of(new ScalarResult("cpu.time.norm", perOp, "ns/op", AggregationPolicy.AVG));
  }
}
