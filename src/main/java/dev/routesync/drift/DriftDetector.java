package dev.routesync.drift;

import dev.routesync.kube.watch.Generation;
import dev.routesync.kube.watch.WatchEvent;
import dev.routesync.kube.watch.WatchSink;
import dev.routesync.rules.ControllerSlices;
import dev.routesync.rules.EndpointCheck;
import dev.routesync.rules.PodStates;
import dev.routesync.rules.PortSearch;
import dev.routesync.sync.Scheduler;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds this node's pods that are Ready but not endpoints of the Services selecting them: the
 * seed's incident, where a renamed container port left eight Ready pods outside their Service.
 *
 * <p>For each pod on this node that {@link PodStates#isExpected} for a controller-managed Service
 * selecting it, and each port of that Service, the pod drifts when its uid is not among the ready
 * endpoints carrying that port ({@link ControllerSlices#readyUidsWithPort}); {@link
 * EndpointCheck#check} says why. {@code NamedPortNotFound} and {@code ProtocolMismatch} follow from
 * the specs and are reported at the next evaluation, at most one debounce after the event; {@code
 * NotInEndpoints} only once the grace has passed since the latest of the pod's Ready transition (as
 * this agent saw it), the Service's last change and the last sync of any of the three watches. A
 * drift already reported stays reported while the reason holds, so a relist does not restart it.
 *
 * <p>Inputs are three {@link WatchSink}s (this node's Pods, the mesh-managed Services, their
 * EndpointSlices); outputs go, all at once, to the gauges ({@link DriftObserver}), the Event
 * recorder ({@link DriftEvents}), one WARN line per new drift, and an immutable {@link
 * DriftSnapshot} that the servers read without locking.
 *
 * <p>Cost: Services are indexed by namespace and one selector pair ({@link SelectorIndex}), so a
 * pod event checks only the Services sharing a label with the pod; each Service keeps the set of
 * this node's pods it selects, so a slice change re-checks only those; a Service change rescans
 * only this node's pods of its namespace. Re-evaluations are coalesced on one debounce timer.
 *
 * <p>Parts, each with one job: {@link NodePods} (this node's pods), {@link Membership} (the
 * Services, and which of the pods each selects), {@link SliceStore} (the slices by Service), {@link
 * PendingWork} (what the next round looks at, and its debounce timer), {@link PortVerdicts} (one
 * pod's verdicts, the gauges and the snapshot) and {@link GraceTimer}. This class wires them to the
 * three inputs and runs the rounds.
 *
 * <p>Threading: everything runs on one context (the agent's sync context), like the coalescer: the
 * sinks, the timers of {@code scheduler}, and so all state; no locks. {@link #current()} may be
 * called from any thread. Needs no Vert.x: a benchmark drives it with a fake scheduler, on one
 * thread:
 *
 * <pre>{@code
 * FakeScheduler clock = new FakeScheduler();
 * DriftDetector detector = new DriftDetector("node-a", Duration.ofSeconds(30),
 *     Duration.ofMillis(50), clock, Clock.systemUTC(), PortSearch.CONTAINERS_AND_SIDECARS,
 *     DriftObserver.NONE, (entry, pod, service) -> {});
 * detector.pods().sync(pods);            // the three initial lists; nothing is evaluated
 * detector.services().sync(services);    // before all three have synced
 * detector.slices().sync(slices);
 * detector.pods().event(new WatchEvent<>(WatchEvent.Type.UPDATED, before, after, clock.nanoTime()));
 * clock.advance(Duration.ofMillis(50));  // one debounce: the evaluation runs
 * detector.current();                    // the snapshot; detector.stats() counts the work
 * }</pre>
 */
public final class DriftDetector implements DriftView {

  private static final Logger LOG = LoggerFactory.getLogger(DriftDetector.class);

  private enum Watched {
    PODS,
    SERVICES,
    SLICES
  }

  /**
   * Counters for tests and benchmarks.
   *
   * @param flushes evaluations rounds run
   * @param podEvaluations pods evaluated against all their Services
   * @param selectorChecks Service selectors matched against a pod's labels
   */
  public record Stats(long flushes, long podEvaluations, long selectorChecks) {}

  private final String nodeName;
  private final Scheduler scheduler;

  // What the watches say, and what the next round must look at.
  private final PendingWork work;
  private final NodePods pods;
  private final Membership members;
  private final SliceStore slices;

  // The verdicts, and when the next grace ends.
  private final PortVerdicts verdicts;
  private final GraceTimer graceTimer;

  private final EnumSet<Watched> synced = EnumSet.noneOf(Watched.class);
  private long syncedAtNanos;
  private long flushes;

  private volatile DriftSnapshot snapshot = DriftSnapshot.STARTING_EMPTY;

  /**
   * @param nodeName this node: pods of other nodes are ignored even if a watch delivers them
   * @param grace how long a {@code NotInEndpoints} pod waits before it is reported
   * @param debounce how long evaluations are coalesced after a change
   * @param scheduler the sync context's timers and monotonic clock
   * @param wallClock for {@link DriftEntry#since}
   * @param search which containers a named targetPort is looked up in (sidecars on 1.32+)
   */
  public DriftDetector(
      String nodeName,
      Duration grace,
      Duration debounce,
      Scheduler scheduler,
      Clock wallClock,
      PortSearch search,
      DriftObserver observer,
      DriftEvents events) {
    this.nodeName = Objects.requireNonNull(nodeName, "nodeName");
    this.scheduler = scheduler;
    this.work = new PendingWork(scheduler, debounce.toNanos(), this::flush);
    this.pods = new NodePods(nodeName, work, this::podGone);
    this.members = new Membership(pods, work);
    this.slices = new SliceStore(work);
    this.verdicts =
        new PortVerdicts(
            nodeName,
            grace.toNanos(),
            wallClock,
            search,
            events,
            new DriftGauges(observer),
            members::service);
    this.graceTimer = new GraceTimer(scheduler, this::graceEnded);
  }

  @Override
  public DriftSnapshot current() {
    return snapshot;
  }

  public Stats stats() {
    return new Stats(flushes, verdicts.podEvaluations(), members.selectorChecks());
  }

  /** The sink of the node-scoped Pods watch. */
  public DriftInput<Pod> pods() {
    return new DriftInput<>(
        Watched.PODS, pods::upserted, (pod, at) -> pods.deleted(pod), pods::listed);
  }

  /** The sink of the label-selected Services watch. */
  public DriftInput<Service> services() {
    return new DriftInput<>(
        Watched.SERVICES,
        members::serviceUpserted,
        (service, at) -> members.serviceDeleted(service),
        members::servicesListed);
  }

  /**
   * The sink of an EndpointSlice watch whose informers keep fabric8's own store (every decoded
   * slice): a relist reads the new generation's slices. Tests and benchmarks feed it directly.
   */
  public DriftInput<EndpointSlice> slices() {
    return slices(generation -> nodeSlicesOf(generation.objects()));
  }

  /**
   * The sink of the agent's EndpointSlice watch (tee'd with the routing table's), whose store keeps
   * no decoded slice but each slice's {@link #nodeSliceOf} (kube's {@code CompactForms}): a relist
   * reads those of the new generation through {@code formsOf}, events carry whole slices.
   *
   * @param formsOf the {@link NodeSlice} of every slice of a generation that has just synced
   */
  public DriftInput<EndpointSlice> slices(
      Function<Generation<EndpointSlice>, ? extends Collection<NodeSlice>> formsOf) {
    return new DriftInput<>(
        Watched.SLICES,
        (slice, at) -> slices.upserted(nodeSliceOf(slice)),
        (slice, at) -> slices.deleted(namespaceOf(slice), nameOf(slice)),
        (listed, at) -> slices.listed(nodeSlicesOf(listed)),
        (generation, at) -> slices.listed(formsOf.apply(generation)));
  }

  /**
   * What the detector keeps of a slice: made once per slice version, by the informer's store for a
   * list and by the detector for an event. Any thread; never throws.
   */
  public NodeSlice nodeSliceOf(EndpointSlice slice) {
    return NodeSlice.of(slice, nodeName);
  }

  private List<NodeSlice> nodeSlicesOf(Collection<EndpointSlice> listed) {
    return listed.stream().map(this::nodeSliceOf).toList();
  }

  private static String namespaceOf(EndpointSlice slice) {
    return slice == null || slice.getMetadata() == null ? null : slice.getMetadata().getNamespace();
  }

  private static String nameOf(EndpointSlice slice) {
    return slice == null || slice.getMetadata() == null ? null : slice.getMetadata().getName();
  }

  /** The pod is gone (or not ours): its drifts clear, its Services lose it. */
  private void podGone(PodState pod) {
    verdicts.forget(pod);
    members.leaveAll(pod);
    work.forgetPod(pod.key);
  }

  private boolean allSynced() {
    return synced.size() == Watched.values().length;
  }

  private void synced(Watched input, long at) {
    syncedAtNanos = Math.max(syncedAtNanos, at);
    boolean wasComplete = allSynced();
    synced.add(input);
    if (!wasComplete && allSynced()) {
      LOG.info(
          "drift detector on: node {}, {} pods, {} Services",
          nodeName,
          pods.size(),
          members.serviceRefs().size());
      work.servicesChanged.addAll(members.serviceRefs()); // every pod: its Services, a verdict
      verdicts.markSnapshotStale();
    }
    // A sync restarts the grace of every pod still in it: they are evaluated again.
    work.reevaluate.addAll(verdicts.inGrace());
    work.scheduleRound();
  }

  /** Evaluates everything the changes since the last evaluation touched. */
  private void flush() {
    work.roundStarted();
    if (!allSynced()) {
      work.dropChanges(); // until all three watches have synced, half a picture
      return;
    }
    flushes++;
    long now = scheduler.nanoTime();
    for (ServiceRef ref : work.servicesChanged) {
      members.rescan(ref);
    }
    for (ServiceRef ref : work.slicesChanged) {
      work.reevaluate.addAll(members.membersOf(ref));
      work.touched.add(ref);
    }
    for (String key : work.podsChanged) {
      PodState state = pods.get(key);
      if (state != null) {
        members.rematch(state);
        work.reevaluate.add(key);
      }
    }
    ReadyUids readyUids = new ReadyUids(slices);
    for (String key : work.reevaluate) {
      PodState state = pods.get(key);
      if (state != null) {
        verdicts.evaluate(state, now, syncedAtNanos, readyUids);
      }
    }
    for (ServiceRef ref : work.touched) {
      verdicts.refreshGauges(ref, members.service(ref), members.hasMembers(ref), readyUids);
    }
    work.clear();
    verdicts.changedSnapshot().ifPresent(next -> snapshot = next);
    graceTimer.aimAt(verdicts.earliestGraceEnd(), now);
  }

  /** A grace ended: its pods are evaluated now, not a debounce later. */
  private void graceEnded() {
    verdicts.graceEndedBy(scheduler.nanoTime(), work.reevaluate);
    work.cancelScheduledRound();
    flush();
  }

  /**
   * One watch's events and syncs, turned into the detector's inputs. A benchmark or test feeds it
   * directly: {@link #sync} for a whole list, {@link #event} for each change (on the detector's one
   * thread).
   */
  public final class DriftInput<T extends HasMetadata> implements WatchSink<T> {

    private final Watched input;
    private final Upsert<T> upsert;
    private final Upsert<T> delete;
    private final Listed<T> listed;
    private final Relisted<T> relisted;

    /** A relist hands over the new generation's objects. */
    DriftInput(Watched input, Upsert<T> upsert, Upsert<T> delete, Listed<T> listed) {
      this(
          input,
          upsert,
          delete,
          listed,
          (generation, at) -> listed.accept(generation.objects(), at));
    }

    DriftInput(
        Watched input, Upsert<T> upsert, Upsert<T> delete, Listed<T> listed, Relisted<T> relisted) {
      this.input = input;
      this.upsert = upsert;
      this.delete = delete;
      this.listed = listed;
      this.relisted = relisted;
    }

    @Override
    public void replaced(Generation<T> previous, Generation<T> next) {
      guarded(
          "sync",
          () -> {
            long now = scheduler.nanoTime();
            relisted.accept(next, now);
            synced(input, now);
          });
    }

    /** A whole list of the watched objects: what {@link #replaced} hands over. */
    public void sync(Collection<T> objects) {
      long now = scheduler.nanoTime();
      listed.accept(objects, now);
      synced(input, now);
    }

    @Override
    public void event(WatchEvent<T> event) {
      guarded(
          event.type().label(),
          () -> {
            if (event.type() == WatchEvent.Type.DELETED) {
              delete.accept(event.object(), event.arrivedNanos());
            } else {
              upsert.accept(event.object(), event.arrivedNanos());
            }
          });
    }

    private void guarded(String what, Runnable action) {
      try {
        action.run();
      } catch (RuntimeException e) {
        LOG.error("drift detector dropped a {} {} event", input, what, e);
      }
    }
  }

  @FunctionalInterface
  private interface Upsert<T> {
    void accept(T object, long atNanos);
  }

  @FunctionalInterface
  private interface Listed<T> {
    void accept(Collection<T> objects, long atNanos);
  }

  /** What a new generation hands over: its objects, or what its store kept of them. */
  @FunctionalInterface
  private interface Relisted<T extends HasMetadata> {
    void accept(Generation<T> generation, long atNanos);
  }
}
