package dev.routesync.bench;

import dev.routesync.drift.DriftDetector;
import dev.routesync.drift.DriftObserver;
import dev.routesync.drift.DriftSnapshot;
import dev.routesync.kube.watch.WatchEvent;
import dev.routesync.rules.MissingReason;
import dev.routesync.rules.PortSearch;
import dev.routesync.sync.FakeScheduler;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.SplittableRandom;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The drift detector's cost per watch event on a node with {@value DriftCluster#PODS} pods, in a
 * cluster of {@code services} Services (issue 9: "110 pods on the node, 10,000 Services in the
 * cluster, 1,000 events/s"). The cluster is {@link DriftCluster}: namespaces of 100 Services, this
 * node's pods in ten of them (each pod selected by 1 to 3 Services; 240 Services select a pod
 * here), five pods drifting (a renamed port, in a slice without it: ten drifts). The {@code
 * services} param adds namespaces without pods here, so at 1,000 and 10,000 the namespaces with
 * pods here are the same: the scaling control, side by side in one run, for the claim that an event
 * costs the Services that could concern this node's pods, not the cluster's Services.
 *
 * <p>The detector is built directly (no Vert.x) on a {@link FakeScheduler}, with the agent's
 * default debounce (50 ms) and grace (30 s), a counting observer and Event sink; the three inputs
 * are synced with the whole cluster in the trial's setup. Each invocation of a per-event benchmark
 * delivers one UPDATED event (alternating each object's two versions, so every event is a real
 * change) and then moves the clock by one debounce, so the detector's evaluation runs inside the
 * measured call: the cost of an event that arrives alone.
 *
 * <ul>
 *   <li>{@code podEvent}: one of this node's pods, label-preserving (a new resourceVersion and
 *       annotation, still Ready): its candidate Services are matched and it is evaluated against
 *       every port of each Service selecting it;
 *   <li>{@code sliceEventOfServiceWithPodsHere}: the slice of a Service selecting a pod here (one
 *       other node's endpoint flips readiness): only that Service's pods here are re-checked;
 *   <li>{@code sliceEventOfUnrelatedService}: the same for a Service with no pod here: no pod
 *       evaluation at all;
 *   <li>{@code sliceEventOfUnrelatedServiceInNodeNamespaces}: the control for the previous one: the
 *       same, over only the 760 Services without pods here of the ten namespaces with pods here,
 *       the same objects at both sizes. If the previous one grows from 1,000 to 10,000 Services and
 *       this one does not, the growth is the larger set of objects it touches (cache misses); if
 *       both grow alike, something in the detector costs, per evaluation, in proportion to the
 *       cluster (as the first runs found: see benchmarks/README.md);
 *   <li>{@code serviceEvent}: an annotation change of a Service in a namespace with pods here: its
 *       selector is matched against this node's pods of that namespace, which are re-checked;
 *   <li>{@code mixedAt1000PerSecond}: a recorded stream (fixed seed) of 70% slice events of
 *       Services picked uniformly in the cluster, 20% Service events (idem), 10% pod events, one
 *       every simulated millisecond: evaluations are coalesced by the debounce as in the agent
 *       (about 50 events per evaluation). The score is CPU time per event; times 1,000 it is the
 *       share of one core that 1,000 events/s take;
 *   <li>{@code mixedFlushEach}: the same stream, with an evaluation after every event (the upper
 *       bound, as if events were more than a debounce apart).
 * </ul>
 *
 * <p>Each trial checks, after setup and at the end, that the detector reports exactly the expected
 * drifts and has no grace pending, and prints its pod evaluations and selector checks per event, so
 * a benchmark that did no work (or too much) shows. Add {@code -prof gc} for allocation per event.
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar DriftDetectorBenchmark -prof gc
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class DriftDetectorBenchmark {

  static final Duration DEBOUNCE = Duration.ofMillis(50);
  static final Duration GRACE = Duration.ofSeconds(30);
  static final long EVENT_SPACING_NANOS = 1_000_000; // 1,000 events/s
  static final int STREAM = 100_000;
  private static final long SEED = 0xD21F7L;

  @Param({"1000", "10000"})
  int services;

  private DriftCluster cluster;
  private FakeScheduler scheduler;
  private DriftDetector detector;
  private DriftDetector.DriftInput<Pod> podInput;
  private DriftDetector.DriftInput<Service> serviceInput;
  private DriftDetector.DriftInput<EndpointSlice> sliceInput;
  private final CountingObserver observer = new CountingObserver();
  private long eventsRecorded;

  // Which version each object is at: the next event delivers the other one.
  private boolean[] podAt2;
  private boolean[] serviceAt2;
  private boolean[] sliceAt2;

  // Rotations over the objects each per-event benchmark changes (shuffled, fixed seed).
  private int[] podOrder;
  private int[] withPodsHereOrder;
  private int[] unrelatedOrder;
  private int[] unrelatedInNodeNamespacesOrder;
  private int[] nodeNamespaceServiceOrder;
  private int next;

  // The mixed stream: kind (0 slice, 1 Service, 2 pod) and object index.
  private byte[] streamKind;
  private int[] streamIndex;

  private long invocations;
  private long evaluationsBefore;
  private long selectorChecksBefore;
  private long flushesBefore;

  @Setup(Level.Trial)
  public void setUp() {
    long started = System.nanoTime();
    cluster = new DriftCluster(services);
    scheduler = new FakeScheduler();
    detector =
        new DriftDetector(
            DriftCluster.NODE,
            GRACE,
            DEBOUNCE,
            scheduler,
            Clock.systemUTC(),
            PortSearch.CONTAINERS_AND_SIDECARS,
            observer,
            (entry, pod, service) -> eventsRecorded++);
    podInput = detector.pods();
    serviceInput = detector.services();
    sliceInput = detector.slices();
    podInput.sync(cluster.initialPods());
    serviceInput.sync(cluster.initialServices());
    sliceInput.sync(cluster.initialSlices());
    scheduler.advance(DEBOUNCE);
    // Past every grace started by the sync, so nothing is pending when measuring starts.
    scheduler.advance(GRACE.plus(DEBOUNCE));
    check("after setup");

    podAt2 = new boolean[cluster.pods.length];
    serviceAt2 = new boolean[cluster.services.length];
    sliceAt2 = new boolean[cluster.slices.length];
    SplittableRandom random = new SplittableRandom(SEED);
    podOrder = shuffled(identity(cluster.pods.length), random);
    withPodsHereOrder = shuffled(cluster.withPodsHere.clone(), random);
    unrelatedOrder = shuffled(cluster.withoutPodsHere.clone(), random);
    unrelatedInNodeNamespacesOrder =
        shuffled(
            Arrays.stream(cluster.withoutPodsHere)
                .filter(i -> i < cluster.inNodeNamespaces.length)
                .toArray(),
            random);
    nodeNamespaceServiceOrder = shuffled(cluster.inNodeNamespaces.clone(), random);
    streamKind = new byte[STREAM];
    streamIndex = new int[STREAM];
    for (int i = 0; i < STREAM; i++) {
      int dice = random.nextInt(100);
      if (dice < 70) {
        streamKind[i] = 0;
        streamIndex[i] = random.nextInt(cluster.slices.length);
      } else if (dice < 90) {
        streamKind[i] = 1;
        streamIndex[i] = random.nextInt(cluster.services.length);
      } else {
        streamKind[i] = 2;
        streamIndex[i] = random.nextInt(cluster.pods.length);
      }
    }
    DriftDetector.Stats stats = detector.stats();
    evaluationsBefore = stats.podEvaluations();
    selectorChecksBefore = stats.selectorChecks();
    flushesBefore = stats.flushes();
    System.out.printf(
        "%n# %,d Services (%,d select a pod here), %d pods here, %d drifts;" + " setup %.1f s%n",
        services,
        cluster.withPodsHere.length,
        DriftCluster.PODS,
        cluster.expectedDrifts,
        (System.nanoTime() - started) / 1e9);
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    // A mixed run may end inside a debounce: let the last evaluation run before checking.
    scheduler.advance(DEBOUNCE);
    check("at the end");
    DriftDetector.Stats stats = detector.stats();
    double events = Math.max(1, invocations);
    System.out.printf(
        "%n# per event: %.2f pod evaluations, %.2f selector checks, %.3f evaluation rounds"
            + " (%,d events)%n",
        (stats.podEvaluations() - evaluationsBefore) / events,
        (stats.selectorChecks() - selectorChecksBefore) / events,
        (stats.flushes() - flushesBefore) / events,
        invocations);
  }

  @Benchmark
  public DriftSnapshot podEvent() {
    updatePod(podOrder[next++ % podOrder.length]);
    return flushed();
  }

  @Benchmark
  public DriftSnapshot sliceEventOfServiceWithPodsHere() {
    updateSlice(withPodsHereOrder[next++ % withPodsHereOrder.length]);
    return flushed();
  }

  @Benchmark
  public DriftSnapshot sliceEventOfUnrelatedService() {
    updateSlice(unrelatedOrder[next++ % unrelatedOrder.length]);
    return flushed();
  }

  @Benchmark
  public DriftSnapshot sliceEventOfUnrelatedServiceInNodeNamespaces() {
    updateSlice(unrelatedInNodeNamespacesOrder[next++ % unrelatedInNodeNamespacesOrder.length]);
    return flushed();
  }

  @Benchmark
  public DriftSnapshot serviceEvent() {
    updateService(nodeNamespaceServiceOrder[next++ % nodeNamespaceServiceOrder.length]);
    return flushed();
  }

  @Benchmark
  public DriftSnapshot mixedAt1000PerSecond() {
    deliver(next++ % STREAM);
    invocations++;
    scheduler.advanceNanos(EVENT_SPACING_NANOS);
    return detector.current();
  }

  @Benchmark
  public DriftSnapshot mixedFlushEach() {
    deliver(next++ % STREAM);
    return flushed();
  }

  private void deliver(int event) {
    switch (streamKind[event]) {
      case 0 -> updateSlice(streamIndex[event]);
      case 1 -> updateService(streamIndex[event]);
      default -> updatePod(streamIndex[event]);
    }
  }

  private DriftSnapshot flushed() {
    invocations++;
    scheduler.advance(DEBOUNCE);
    return detector.current();
  }

  private void updatePod(int i) {
    podAt2[i] = !podAt2[i];
    podInput.event(updated(cluster.pods[i][podAt2[i] ? 1 : 0]));
  }

  private void updateService(int i) {
    serviceAt2[i] = !serviceAt2[i];
    serviceInput.event(updated(cluster.services[i][serviceAt2[i] ? 1 : 0]));
  }

  private void updateSlice(int i) {
    sliceAt2[i] = !sliceAt2[i];
    sliceInput.event(updated(cluster.slices[i][sliceAt2[i] ? 1 : 0]));
  }

  private <T extends HasMetadata> WatchEvent<T> updated(T object) {
    return new WatchEvent<>(WatchEvent.Type.UPDATED, null, object, scheduler.nanoTime());
  }

  /** The detector reports the planted drifts, nothing else, and waits for no grace. */
  private void check(String when) {
    DriftSnapshot snapshot = detector.current();
    long named =
        snapshot.drift().stream()
            .filter(entry -> entry.reason() == MissingReason.NAMED_PORT_NOT_FOUND)
            .count();
    if (snapshot.state() != DriftSnapshot.State.ON
        || snapshot.drift().size() != cluster.expectedDrifts
        || named != cluster.expectedDrifts) {
      throw new IllegalStateException(
          when
              + ": expected "
              + cluster.expectedDrifts
              + " NamedPortNotFound drifts, the detector ("
              + snapshot.state()
              + ") has "
              + snapshot.drift());
    }
    if (eventsRecorded != cluster.expectedDrifts) {
      throw new IllegalStateException(
          when + ": " + eventsRecorded + " Events recorded, not " + cluster.expectedDrifts);
    }
    if (scheduler.pendingCount() != 0) {
      throw new IllegalStateException(when + ": timers pending: " + scheduler.pendingTasks());
    }
    if (observer.calls == 0) {
      throw new IllegalStateException(when + ": no gauge was ever set");
    }
  }

  private static int[] identity(int n) {
    int[] values = new int[n];
    for (int i = 0; i < n; i++) {
      values[i] = i;
    }
    return values;
  }

  private static int[] shuffled(int[] values, SplittableRandom random) {
    for (int i = values.length - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      int swap = values[i];
      values[i] = values[j];
      values[j] = swap;
    }
    return values;
  }

  /** Counts the gauge updates, so the observer's calls are real work the JIT cannot drop. */
  static final class CountingObserver implements DriftObserver {
    long calls;

    @Override
    public void driftPods(PortSeries series, MissingReason reason, int pods) {
      calls++;
    }

    @Override
    public void removeDriftPods(PortSeries series, MissingReason reason) {
      calls++;
    }

    @Override
    public void readyEndpoints(PortSeries series, int endpoints) {
      calls++;
    }

    @Override
    public void removeReadyEndpoints(PortSeries series) {
      calls++;
    }
  }
}
