package dev.routesync.bench;

import static dev.routesync.testing.TableStates.states;

import dev.routesync.table.Endpoint;
import dev.routesync.table.RoutingTable;
import dev.routesync.table.ServiceEndpoints;
import dev.routesync.table.ServiceKey;
import dev.routesync.table.ServiceState;
import dev.routesync.table.TableWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Reads never wait for the writer: in-process lookups ({@code writer.current().get(key)}, random
 * keys of a 10,000-service table with 25 endpoints each) from 2 reader threads, alone (group {@code
 * readersAlone}) and while a third thread publishes continuously (group {@code readersWithWriter}).
 * A lookup is one volatile read of an immutable table plus a tree search, with no lock, so the
 * writer should not make readers wait. The writer is far harsher than the agent's: it publishes
 * batches of 100 changed services back to back (alternating two endpoint generations over 10
 * disjoint batches, so every publish is a real new version, which it checks), where the agent
 * publishes at most once per debounce window. A third group, {@code controlLockedTable}, is a
 * negative control and not the agent's design: the same readers and writer behind a {@link
 * ReentrantReadWriteLock}, to show on the same machine what waiting looks like.
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar ReadsNeverWaitBenchmark
 * java -jar benchmarks/target/benchmarks.jar ReadsNeverWaitBenchmark -prof stack   # thread states
 * </pre>
 *
 * <p>How to read it. Compare {@code readersAlone} with {@code readersWithWriter:lookupWithWriter}
 * (lookups/s of both readers together). {@code readersWithWriter:publish} is the writer's own
 * publishes/s, so it is visible that it really ran. (A group's unlabelled total adds all its
 * methods' ops, publishes included.)
 *
 * <p>The machine the figures come from has 2 cores, so with the writer there are 3 busy threads on
 * 2 cores: the scheduler gives each about 2/3 of a core, and the readers' lookups/s drop to about
 * 2/3 of the alone figure from CPU share alone. That drop is scheduling, not waiting. The counters
 * {@code readerCpuMillis} and {@code writerCpuMillis} say how much CPU each side actually got, in
 * CPU milliseconds per second summed over its threads (JMH prints "ops/s"; 1,000 is one core, 2,000
 * the whole machine). Readers that never wait get about 2,000 alone and about 1,333 beside the
 * writer (less when other work shares the machine: the counters show it), and their lookups per CPU
 * second ({@code lookups/s * 1000 / readerCpuMillis}) stay close; what remains is cache misses on
 * the tree nodes the writer replaced and GC of the writer's garbage ({@code -prof gc} shows its
 * allocation rate). A lock looks different, as the control shows: the writer holds it most of the
 * time, readers block, {@code readerCpuMillis} falls far below their share while the writer's
 * rises, lookups/s drop far more than the CPU share explains, and {@code -prof stack} shows the
 * reader threads WAITING instead of RUNNABLE. With at least 3 free cores, lookups/s should barely
 * move. Skip the control with {@code -e controlLockedTable}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class ReadsNeverWaitBenchmark {

  static final int SERVICES = 10_000;
  static final int ENDPOINTS_PER_SERVICE = 25;
  static final int BATCH = 100;
  static final int BATCHES = 10;

  /** The table, its single writer, the lookup keys and the writer's prepared batches. */
  @State(Scope.Benchmark)
  public static class Table {
    TableWriter writer;
    ServiceKey[] keys;
    // [batch][generation]: batch b changes services b, b + 10, b + 20, ... (spread over the keys).
    Map<ServiceKey, ServiceState>[][] batches;
    // Only for the control group.
    final ReadWriteLock lock = new ReentrantReadWriteLock();

    @Setup(Level.Trial)
    @SuppressWarnings("unchecked")
    public void setUp() {
      writer = new TableWriter(Clock.systemUTC(), RoutingTable.DEFAULT_DELTA_LOG_CAPACITY);
      writer.publish(states(Tables.services(SERVICES, ENDPOINTS_PER_SERVICE)), List.of());
      // Lookup keys are equal to, not identical with, the table's keys, as a request's would be.
      keys = new ServiceKey[SERVICES];
      for (int s = 0; s < SERVICES; s++) {
        keys[s] = Tables.key(s);
      }
      batches = new Map[BATCHES][2];
      for (int b = 0; b < BATCHES; b++) {
        for (int generation = 0; generation < 2; generation++) {
          Map<ServiceKey, List<Endpoint>> batch = new HashMap<>();
          for (int i = 0; i < BATCH; i++) {
            int service = i * BATCHES + b;
            batch.put(
                Tables.key(service),
                Tables.endpoints(service, ENDPOINTS_PER_SERVICE, generation + 1));
          }
          batches[b][generation] = states(batch);
        }
      }
    }
  }

  /** A reader thread's own random sequence (xorshift: no shared state between readers). */
  @State(Scope.Thread)
  public static class Reader {
    int seed;

    @Setup(Level.Trial)
    public void setUp() {
      seed = ThreadLocalRandom.current().nextInt() | 1;
    }

    int nextIndex(int bound) {
      int x = seed;
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      seed = x;
      return (int) (((x & 0xFFFFFFFFL) * bound) >>> 32);
    }
  }

  /** Where the writer is in its cycle of batches and generations. */
  @State(Scope.Thread)
  public static class Writer {
    int publishes;
  }

  /**
   * CPU milliseconds one thread got during an iteration. As an OPERATIONS counter JMH divides it by
   * the iteration's time and sums it over the side's threads, so it reads as CPU ms per second
   * ("ops/s"): 1,000 is one core. (JMH zeroes it after the iteration's setup and reads it after its
   * teardown; the few milliseconds of synchronised start and stop around the measured window make
   * it read high by well under 1% at 2 s iterations.)
   */
  abstract static class CpuTime {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private long cpuStart;

    @Setup(Level.Iteration)
    public void start() {
      cpuStart = THREADS.getCurrentThreadCpuTime();
    }

    @TearDown(Level.Iteration)
    public void stop() {
      record((THREADS.getCurrentThreadCpuTime() - cpuStart) / 1e6);
    }

    abstract void record(double cpuMillis);
  }

  @AuxCounters(AuxCounters.Type.OPERATIONS)
  @State(Scope.Thread)
  public static class ReaderCpu extends CpuTime {
    public double readerCpuMillis;

    @Override
    void record(double cpuMillis) {
      readerCpuMillis = cpuMillis;
    }
  }

  @AuxCounters(AuxCounters.Type.OPERATIONS)
  @State(Scope.Thread)
  public static class WriterCpu extends CpuTime {
    public double writerCpuMillis;

    @Override
    void record(double cpuMillis) {
      writerCpuMillis = cpuMillis;
    }
  }

  @Benchmark
  @Group("readersAlone")
  @GroupThreads(2)
  public Optional<ServiceEndpoints> lookupAlone(Table table, Reader reader, ReaderCpu cpu) {
    return table.writer.current().get(table.keys[reader.nextIndex(SERVICES)]);
  }

  @Benchmark
  @Group("readersWithWriter")
  @GroupThreads(2)
  public Optional<ServiceEndpoints> lookupWithWriter(Table table, Reader reader, ReaderCpu cpu) {
    return table.writer.current().get(table.keys[reader.nextIndex(SERVICES)]);
  }

  /** One publish of 100 changed services; always a new version. The only writer thread. */
  @Benchmark
  @Group("readersWithWriter")
  @GroupThreads(1)
  public RoutingTable publish(Table table, Writer writer, WriterCpu cpu) {
    return publishNext(table, writer);
  }

  /** Control, not the agent's design: the same lookups behind a read lock. */
  @Benchmark
  @Group("controlLockedTable")
  @GroupThreads(2)
  public Optional<ServiceEndpoints> lookupLocked(Table table, Reader reader, ReaderCpu cpu) {
    Lock lock = table.lock.readLock();
    lock.lock();
    try {
      return table.writer.current().get(table.keys[reader.nextIndex(SERVICES)]);
    } finally {
      lock.unlock();
    }
  }

  /** Control: the same publishes under the write lock. */
  @Benchmark
  @Group("controlLockedTable")
  @GroupThreads(1)
  public RoutingTable publishLocked(Table table, Writer writer, WriterCpu cpu) {
    Lock lock = table.lock.writeLock();
    lock.lock();
    try {
      return publishNext(table, writer);
    } finally {
      lock.unlock();
    }
  }

  private static RoutingTable publishNext(Table table, Writer writer) {
    int n = writer.publishes++;
    RoutingTable next =
        table.writer.publish(table.batches[n % BATCHES][(n / BATCHES) & 1], List.of());
    // Version 1 is the initial table: publish n must be version n + 2, or it changed nothing.
    if (next.version() != n + 2L) {
      throw new IllegalStateException("publish " + n + " was not a new version: " + next);
    }
    return next;
  }
}
