package dev.routesync.bench;

import static dev.routesync.testing.TableStates.states;

import dev.routesync.observe.Metrics;
import dev.routesync.sync.Coalescer;
import dev.routesync.sync.CoalescerSettings;
import dev.routesync.sync.EndpointLookup;
import dev.routesync.sync.FakeScheduler;
import dev.routesync.sync.Reconciler;
import dev.routesync.table.Endpoint;
import dev.routesync.table.RoutingTable;
import dev.routesync.table.ServiceEndpoints;
import dev.routesync.table.ServiceKey;
import dev.routesync.table.ServiceState;
import dev.routesync.table.TableWriter;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Cost per watch event of the agent's pipeline (coalesce dirty keys, recompute each once, publish
 * one persistent-map version per flush) against the seed document's naive design (recompute the
 * service and publish a full copy of the map on every event), over the same recorded event stream.
 * The targets: the coalescer costs at least 20x less CPU per event and publishes at least 50x fewer
 * versions.
 *
 * <p>The stream is recorded once per trial from a fixed seed: {@value #EVENTS} events in bursts of
 * 100 to 500 (10,000 events/s inside a burst, exponential gaps of 30 ms mean between bursts, so
 * 5,000 events/s on average: about two simulated seconds), over {@code services} Services chosen
 * Zipf-skewed (exponent {@value #ZIPF_EXPONENT} over ranks: a few Services roll often, most never
 * change). Every event is a real change: service {@code s} at its {@code c}-th change has the
 * endpoints {@code Tables.endpoints(s, 5, c)}. Each invocation replays the whole stream from the
 * same initial state (every Service at change 0), so the score is time per event.
 *
 * <ul>
 *   <li>{@code coalescer}: for each event, the simulated clock moves to the event's time (running
 *       due timers, hence flushes), the event is applied to the in-memory source of truth (the
 *       informer cache's role), and the real {@link Coalescer} (default settings: 50 ms debounce,
 *       500 ms max delay, 5,000 max batch) marks the Service dirty; its sink is the real {@link
 *       Reconciler} over a real {@link TableWriter}, looking endpoints up in the source of truth.
 *       At the end the clock moves past the max delay, so the last batch is published.
 *   <li>{@code naiveCopyPerEvent}: for each event, the same source-of-truth update, then the
 *       Service is recomputed (same lookup), compared with the published map (the seed skipped
 *       equal sets; here every event is a change), and a full {@code HashMap} copy with the change
 *       applied is published through an {@link AtomicReference} as a new version.
 * </ul>
 *
 * <p>The auxiliary counters {@code versions} and {@code streams} are totals over the measured
 * iterations; {@code versions / streams} is the versions published per replay of the stream (for
 * the naive design, exactly {@value #EVENTS}). Each forked VM also prints the stream's shape and
 * the coalescer's flushes per stream by cause. After every invocation the final table (or map) is
 * checked against the source of truth, and the run fails if they differ. The score is the benchmark
 * thread's time per event; add {@code -prof gc} to see the allocation per event, which the naive
 * design's copies turn into collector work on other threads.
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar CoalescingBenchmark -f 1 -wi 3 -i 5
 * </pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 5)
@Measurement(iterations = 5, time = 5)
@Fork(1)
public class CoalescingBenchmark {

  /** Events per recorded stream; a compile-time constant for {@link OperationsPerInvocation}. */
  static final int EVENTS = 10_000;

  static final double ZIPF_EXPONENT = 1.1;

  private static final long SEED = 0x5EED_C0A1L;
  private static final int ENDPOINTS_PER_SERVICE = 5;
  private static final int MIN_BURST = 100;
  private static final int MAX_BURST = 500;
  private static final long MEAN_SPACING_NANOS = 100_000;
  private static final long MEAN_GAP_NANOS = 30_000_000;

  /** The recorded stream, and the state every replay starts from and must end at. */
  @State(Scope.Benchmark)
  public static class RecordedStream {

    @Param({"10000"})
    int services;

    /** Every Service at change 0. */
    Map<ServiceKey, List<Endpoint>> initial;

    /** The source of truth after the whole stream. */
    Map<ServiceKey, List<Endpoint>> expected;

    /** The Services the stream changes, each with its initial endpoints. */
    Map<ServiceKey, List<Endpoint>> touched;

    long[] atNanos;
    ServiceKey[] keys;
    List<Endpoint>[] endpoints;

    @Setup(Level.Trial)
    @SuppressWarnings("unchecked")
    public void record() {
      SplittableRandom random = new SplittableRandom(SEED);
      ServiceKey[] keyOf = new ServiceKey[services];
      initial = new HashMap<>(services * 2);
      for (int s = 0; s < services; s++) {
        keyOf[s] = Tables.key(s);
        initial.put(keyOf[s], Tables.endpoints(s, ENDPOINTS_PER_SERVICE, 0));
      }
      // Zipf over ranks; ranks are shuffled onto services so the busy ones are spread out.
      double[] cdf = new double[services];
      double sum = 0;
      for (int rank = 0; rank < services; rank++) {
        sum += Math.pow(rank + 1, -ZIPF_EXPONENT);
        cdf[rank] = sum;
      }
      for (int rank = 0; rank < services; rank++) {
        cdf[rank] /= sum;
      }
      int[] serviceAtRank = new int[services];
      for (int i = 0; i < services; i++) {
        serviceAtRank[i] = i;
      }
      for (int i = services - 1; i > 0; i--) {
        int j = random.nextInt(i + 1);
        int swap = serviceAtRank[i];
        serviceAtRank[i] = serviceAtRank[j];
        serviceAtRank[j] = swap;
      }

      atNanos = new long[EVENTS];
      keys = new ServiceKey[EVENTS];
      endpoints = new List[EVENTS];
      expected = new HashMap<>(initial);
      int[] changes = new int[services];
      long now = 0;
      int bursts = 0;
      int event = 0;
      while (event < EVENTS) {
        bursts++;
        int burst = MIN_BURST + random.nextInt(MAX_BURST - MIN_BURST + 1);
        for (int i = 0; i < burst && event < EVENTS; i++, event++) {
          now += exponential(random, MEAN_SPACING_NANOS);
          int rank = Arrays.binarySearch(cdf, random.nextDouble());
          int s = serviceAtRank[Math.min(rank < 0 ? -rank - 1 : rank, services - 1)];
          atNanos[event] = now;
          keys[event] = keyOf[s];
          endpoints[event] = Tables.endpoints(s, ENDPOINTS_PER_SERVICE, ++changes[s]);
          expected.put(keyOf[s], endpoints[event]);
        }
        now += exponential(random, MEAN_GAP_NANOS);
      }

      touched = new HashMap<>();
      int busiest = 0;
      for (int s = 0; s < services; s++) {
        if (changes[s] > 0) {
          touched.put(keyOf[s], initial.get(keyOf[s]));
        }
        busiest = Math.max(busiest, changes[s]);
      }
      double seconds = atNanos[EVENTS - 1] / 1e9;
      System.out.printf(
          "%n# stream: %,d events in %,d bursts over %.2f simulated s (%,.0f events/s);"
              + " %,d of %,d services touched, the busiest %,d times%n",
          EVENTS, bursts, seconds, EVENTS / seconds, touched.size(), services, busiest);
    }

    private static long exponential(SplittableRandom random, long mean) {
      return Math.round(-mean * Math.log(1 - random.nextDouble()));
    }

    /** Throws unless {@code actual} holds exactly the expected final endpoints. */
    void checkFinal(String what, Map<ServiceKey, List<Endpoint>> actual) {
      if (!expected.equals(actual)) {
        throw new IllegalStateException(what + " differs from the expected final state");
      }
    }
  }

  /**
   * Versions published and streams replayed, summed over an iteration (JMH zeroes them before each
   * iteration) and then over the measured iterations.
   */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.EVENTS)
  public static class Versions {
    public long versions;
    public long streams;
  }

  /**
   * The agent's pipeline, back at the initial state before each replay: a new coalescer and clock,
   * and the table rewound by publishing the touched Services' initial endpoints (cheaper than a new
   * table of every Service, and like a long-running agent its delta log is full).
   */
  @State(Scope.Thread)
  public static class Ours {
    final CoalescerSettings settings = CoalescerSettings.defaults();
    Metrics metrics;
    TableWriter writer;
    long replays;

    FakeScheduler clock;
    Map<ServiceKey, List<Endpoint>> truth;
    Coalescer coalescer;
    long initialVersion;

    @Setup(Level.Trial)
    public void create(RecordedStream stream) {
      metrics = new Metrics(new SimpleMeterRegistry());
      writer = new TableWriter(Clock.systemUTC(), RoutingTable.DEFAULT_DELTA_LOG_CAPACITY);
      writer.publish(states(stream.initial), List.of());
    }

    @Setup(Level.Invocation)
    public void reset(RecordedStream stream) {
      clock = new FakeScheduler();
      Map<ServiceKey, List<Endpoint>> source = new HashMap<>(stream.initial);
      truth = source;
      writer.publish(states(stream.touched), List.of());
      initialVersion = writer.current().version();
      EndpointLookup lookup = key -> Optional.ofNullable(source.get(key)).map(ServiceState::of);
      coalescer = new Coalescer(clock, settings, new Reconciler(lookup, writer, metrics.sync()));
    }

    @TearDown(Level.Invocation)
    public void check(RecordedStream stream) {
      replays++;
      if (coalescer.pendingCount() != 0 || clock.pendingCount() != 0) {
        throw new IllegalStateException(
            "coalescer: "
                + coalescer.pendingCount()
                + " services and "
                + clock.pendingCount()
                + " timers still pending after the stream");
      }
      stream.checkFinal("coalescer: source of truth", truth);
      Map<ServiceKey, List<Endpoint>> table = new HashMap<>();
      for (ServiceEndpoints service : writer.current().services()) {
        table.put(service.key(), service.endpoints());
      }
      stream.checkFinal("coalescer: published table", table);
    }

    @TearDown(Level.Trial)
    public void printFlushes() {
      Map<String, Double> byCause = new TreeMap<>();
      double total = 0;
      for (Counter counter : metrics.registry().find("routesync.batches").counters()) {
        byCause.merge(counter.getId().getTag("cause"), counter.count() / replays, Double::sum);
        total += counter.count() / replays;
      }
      System.out.printf("%n# coalescer flushes per stream: %.1f %s%n", total, byCause);
    }
  }

  /**
   * One version of the naive design: a full copy of every Service's endpoints, never modified once
   * published (so readers may share it without a lock; no unmodifiable wrapper, which would only
   * add an allocation per entry to every copy).
   */
  public record NaiveTable(long version, Map<ServiceKey, List<Endpoint>> services) {}

  /** The seed's design, made thread-safe, reset to the initial state before each replay. */
  @State(Scope.Thread)
  public static class Naive {
    final AtomicReference<NaiveTable> published = new AtomicReference<>();
    Map<ServiceKey, List<Endpoint>> truth;
    EndpointLookup lookup;

    @Setup(Level.Invocation)
    public void reset(RecordedStream stream) {
      Map<ServiceKey, List<Endpoint>> source = new HashMap<>(stream.initial);
      truth = source;
      lookup = key -> Optional.ofNullable(source.get(key)).map(ServiceState::of);
      published.set(new NaiveTable(0, new HashMap<>(stream.initial)));
    }

    /** Recomputes one Service and, if it changed, publishes a full copy as a new version. */
    void reconcile(ServiceKey key) {
      Optional<List<Endpoint>> endpoints = lookup.stateOf(key).map(ServiceState::endpoints);
      NaiveTable current = published.get();
      List<Endpoint> old = current.services().get(key);
      if (endpoints.isPresent() ? endpoints.get().equals(old) : old == null) {
        return;
      }
      Map<ServiceKey, List<Endpoint>> next = new HashMap<>(current.services());
      if (endpoints.isPresent()) {
        next.put(key, List.copyOf(endpoints.get()));
      } else {
        next.remove(key);
      }
      published.set(new NaiveTable(current.version() + 1, next));
    }

    @TearDown(Level.Invocation)
    public void check(RecordedStream stream) {
      long versions = published.get().version();
      if (versions != EVENTS) {
        throw new IllegalStateException("naive: " + versions + " versions for " + EVENTS);
      }
      stream.checkFinal("naive: source of truth", truth);
      stream.checkFinal("naive: published map", published.get().services());
    }
  }

  @Benchmark
  @OperationsPerInvocation(EVENTS)
  public RoutingTable coalescer(RecordedStream stream, Ours ours, Versions versions) {
    FakeScheduler clock = ours.clock;
    Map<ServiceKey, List<Endpoint>> truth = ours.truth;
    Coalescer coalescer = ours.coalescer;
    for (int i = 0; i < EVENTS; i++) {
      clock.advanceTo(stream.atNanos[i]);
      truth.put(stream.keys[i], stream.endpoints[i]);
      coalescer.markDirty(stream.keys[i]);
    }
    clock.advanceTo(
        stream.atNanos[EVENTS - 1] + ours.settings.maxDelay().toNanos() + 1_000_000_000L);
    RoutingTable table = ours.writer.current();
    versions.versions += table.version() - ours.initialVersion;
    versions.streams++;
    return table;
  }

  @Benchmark
  @OperationsPerInvocation(EVENTS)
  public NaiveTable naiveCopyPerEvent(RecordedStream stream, Naive naive, Versions versions) {
    Map<ServiceKey, List<Endpoint>> truth = naive.truth;
    for (int i = 0; i < EVENTS; i++) {
      truth.put(stream.keys[i], stream.endpoints[i]);
      naive.reconcile(stream.keys[i]);
    }
    NaiveTable table = naive.published.get();
    versions.versions += table.version();
    versions.streams++;
    return table;
  }
}
