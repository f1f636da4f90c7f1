package dev.routesync.drift;

import dev.routesync.kube.watch.Generation;
import dev.routesync.kube.watch.WatchEvent;
import dev.routesync.kube.watch.WatchSink;
import dev.routesync.rules.ControllerSlices;
import dev.routesync.rules.EndpointCheck;
import dev.routesync.rules.Missing;
import dev.routesync.rules.PodStates;
import dev.routesync.rules.PortSearch;
import dev.routesync.rules.ServiceSelection;
import dev.routesync.sync.Scheduler;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
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

  /** The label the EndpointSlice controller puts on a Service's slices. */
  static final String SERVICE_NAME_LABEL = "kubernetes.io/service-name";

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
  private final long graceNanos;
  private final long debounceNanos;
  private final Scheduler scheduler;
  private final Clock wallClock;
  private final PortSearch search;
  private final DriftEvents events;
  private final DriftGauges gauges;

  // What the watches say. Pods are keyed "namespace/name".
  private final Map<String, PodState> pods = new HashMap<>();
  private final Map<String, Set<String>> podsByNamespace = new HashMap<>();
  private final Map<ServiceRef, ServiceState> services = new HashMap<>();
  private final SelectorIndex index = new SelectorIndex();
  private final Map<ServiceRef, Map<String, EndpointSlice>> slices = new HashMap<>();
  private final Map<String, ServiceRef> sliceOwners = new HashMap<>(); // "ns/slice" -> Service
  // This node's pods each Service selects (any state): the reverse of PodState.services.
  private final Map<ServiceRef, Set<String>> podsOfService = new HashMap<>();

  // The verdicts.
  private final Map<DriftKey, DriftEntry> drifts = new HashMap<>();
  private final Map<String, Long> pendingDue = new HashMap<>(); // pod -> earliest grace end

  // Work for the next evaluation.
  private final Set<ServiceRef> serviceChanged = new LinkedHashSet<>();
  private final Set<ServiceRef> slicesChanged = new LinkedHashSet<>();
  private final Set<String> podChanged = new LinkedHashSet<>();
  private final Set<String> reevaluate = new LinkedHashSet<>();
  private final Set<ServiceRef> touched = new LinkedHashSet<>();
  private final EnumSet<Watched> synced = EnumSet.noneOf(Watched.class);
  private long syncedAtNanos;
  private Scheduler.Cancellable flushTimer;
  private Scheduler.Cancellable graceTimer;
  private long graceTimerDue;
  private boolean snapshotStale;

  private long flushes;
  private long podEvaluations;
  private long selectorChecks;

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
    this.graceNanos = grace.toNanos();
    this.debounceNanos = debounce.toNanos();
    this.scheduler = scheduler;
    this.wallClock = wallClock;
    this.search = search;
    this.events = events;
    this.gauges = new DriftGauges(observer);
  }

  @Override
  public DriftSnapshot current() {
    return snapshot;
  }

  public Stats stats() {
    return new Stats(flushes, podEvaluations, selectorChecks);
  }

  /** The sink of the node-scoped Pods watch. */
  public DriftInput<Pod> pods() {
    return new DriftInput<>(Watched.PODS, this::podUpserted, this::podDeleted, this::podsListed);
  }

  /** The sink of the label-selected Services watch. */
  public DriftInput<Service> services() {
    return new DriftInput<>(
        Watched.SERVICES, this::serviceUpserted, this::serviceDeleted, this::servicesListed);
  }

  /** The sink of the EndpointSlice watch (tee'd with the routing table's). */
  public DriftInput<EndpointSlice> slices() {
    return new DriftInput<>(
        Watched.SLICES, this::sliceUpserted, this::sliceDeleted, this::slicesListed);
  }

  // ---- pods ------------------------------------------------------------------------------------

  private void podUpserted(Pod pod, long at) {
    String key = keyOf(pod);
    if (key == null) {
      return;
    }
    if (!onThisNode(pod)) {
      forgetPod(key); // moved, or a watch that does not filter by node: never ours
      return;
    }
    PodState state = pods.get(key);
    if (state != null && !state.uid.equals(PodStates.uidOf(pod))) {
      forgetPod(key); // the same name, a new pod (a StatefulSet's): its history is not this one's
      state = null;
    }
    if (state == null) {
      state = new PodState(key, pod, at);
      pods.put(key, state);
      podsByNamespace.computeIfAbsent(namespaceOf(pod), ns -> new HashSet<>()).add(key);
    }
    state.pod = pod;
    boolean ready = PodStates.isReady(pod);
    if (ready && state.readySince < 0) {
      state.readySince = at;
    } else if (!ready) {
      state.readySince = -1;
    }
    podChanged.add(key);
    scheduleFlush();
  }

  private void podDeleted(Pod pod, long at) {
    String key = keyOf(pod);
    if (key != null) {
      forgetPod(key);
      scheduleFlush();
    }
  }

  private void podsListed(Collection<Pod> listed, long at) {
    Set<String> keys = new HashSet<>();
    for (Pod pod : listed) {
      String key = keyOf(pod);
      if (key != null && onThisNode(pod)) {
        keys.add(key);
      }
    }
    for (String known : List.copyOf(pods.keySet())) {
      if (!keys.contains(known)) {
        forgetPod(known);
      }
    }
    for (Pod pod : listed) {
      PodState known = pods.get(keyOf(pod));
      if (known == null || !sameVersion(known.pod, pod)) { // a relist re-delivers the unchanged
        podUpserted(pod, at);
      }
    }
  }

  /** The pod is gone (or not ours): its drifts clear, its Services lose it. */
  private void forgetPod(String key) {
    PodState state = pods.remove(key);
    if (state == null) {
      return;
    }
    Set<String> inNamespace = podsByNamespace.get(state.namespace());
    if (inNamespace != null) {
      inNamespace.remove(key);
      if (inNamespace.isEmpty()) {
        podsByNamespace.remove(state.namespace());
      }
    }
    for (DriftKey drift : List.copyOf(state.reported)) {
      clear(state, drift, "pod deleted");
    }
    for (ServiceRef service : state.services) {
      leave(service, key);
    }
    pendingDue.remove(key);
    podChanged.remove(key);
    reevaluate.remove(key);
  }

  // ---- services --------------------------------------------------------------------------------

  private void serviceUpserted(Service service, long at) {
    ServiceRef ref = refOf(service);
    if (ref == null) {
      return;
    }
    ServiceState state = services.get(ref);
    if (state == null) {
      services.put(ref, new ServiceState(service, at));
    } else {
      if (!Objects.equals(resourceVersion(state.service), resourceVersion(service))) {
        state.changedAt = at;
      }
      state.service = service;
    }
    index.put(ref, service);
    serviceChanged.add(ref);
    scheduleFlush();
  }

  private void serviceDeleted(Service service, long at) {
    ServiceRef ref = refOf(service);
    if (ref != null && services.remove(ref) != null) {
      index.remove(ref);
      serviceChanged.add(ref);
      scheduleFlush();
    }
  }

  private void servicesListed(Collection<Service> listed, long at) {
    Set<ServiceRef> refs = new HashSet<>();
    listed.forEach(s -> refs.add(refOf(s)));
    for (ServiceRef known : List.copyOf(services.keySet())) {
      if (!refs.contains(known)) {
        services.remove(known);
        index.remove(known);
        serviceChanged.add(known);
      }
    }
    for (Service service : listed) {
      ServiceState known = services.get(refOf(service));
      if (known == null || !sameVersion(known.service, service)) {
        serviceUpserted(service, at);
      }
    }
  }

  // ---- slices ----------------------------------------------------------------------------------

  private void sliceUpserted(EndpointSlice slice, long at) {
    String key = keyOf(slice);
    if (key == null) {
      return;
    }
    ServiceRef owner = ownerOf(slice);
    ServiceRef before = sliceOwners.get(key);
    if (before != null && !before.equals(owner)) {
      removeSlice(key); // its service-name label changed
    }
    if (owner != null) {
      slices.computeIfAbsent(owner, s -> new HashMap<>()).put(key, slice);
      sliceOwners.put(key, owner);
      slicesChanged.add(owner);
      scheduleFlush();
    }
  }

  private void sliceDeleted(EndpointSlice slice, long at) {
    String key = keyOf(slice);
    if (key != null) {
      removeSlice(key);
      scheduleFlush();
    }
  }

  private void slicesListed(Collection<EndpointSlice> listed, long at) {
    Set<String> keys = new HashSet<>();
    listed.forEach(s -> keys.add(keyOf(s)));
    for (String known : List.copyOf(sliceOwners.keySet())) {
      if (!keys.contains(known)) {
        removeSlice(known);
      }
    }
    for (EndpointSlice slice : listed) {
      ServiceRef owner = sliceOwners.get(keyOf(slice));
      EndpointSlice known =
          owner == null ? null : slices.getOrDefault(owner, Map.of()).get(keyOf(slice));
      if (known == null || !sameVersion(known, slice)) {
        sliceUpserted(slice, at);
      }
    }
  }

  private void removeSlice(String key) {
    ServiceRef owner = sliceOwners.remove(key);
    if (owner == null) {
      return;
    }
    Map<String, EndpointSlice> ofOwner = slices.get(owner);
    if (ofOwner != null) {
      ofOwner.remove(key);
      if (ofOwner.isEmpty()) {
        slices.remove(owner);
      }
    }
    slicesChanged.add(owner);
  }

  // ---- evaluation ------------------------------------------------------------------------------

  private void synced(Watched input, long at) {
    syncedAtNanos = Math.max(syncedAtNanos, at);
    boolean wasComplete = synced.size() == Watched.values().length;
    synced.add(input);
    if (!wasComplete && synced.size() == Watched.values().length) {
      LOG.info(
          "drift detector on: node {}, {} pods, {} Services",
          nodeName,
          pods.size(),
          services.size());
      serviceChanged.addAll(services.keySet()); // every pod gets its Services and a verdict
      snapshotStale = true;
    }
    // A sync restarts the grace of every pod still in it: they are evaluated again.
    reevaluate.addAll(pendingDue.keySet());
    scheduleFlush();
  }

  private void scheduleFlush() {
    if (flushTimer == null) {
      flushTimer = scheduler.schedule(debounceNanos, this::flush);
    }
  }

  /** Evaluates everything the changes since the last evaluation touched. */
  private void flush() {
    flushTimer = null;
    if (synced.size() < Watched.values().length) {
      // Until all three watches have synced, half a picture: every pod is evaluated then.
      serviceChanged.clear();
      slicesChanged.clear();
      podChanged.clear();
      reevaluate.clear();
      return;
    }
    flushes++;
    long now = scheduler.nanoTime();
    for (ServiceRef ref : serviceChanged) {
      rescanMembers(ref);
    }
    for (ServiceRef ref : slicesChanged) {
      reevaluate.addAll(podsOfService.getOrDefault(ref, Set.of()));
      touched.add(ref);
    }
    for (String key : podChanged) {
      PodState state = pods.get(key);
      if (state != null) {
        rematch(state);
        reevaluate.add(key);
      }
    }
    ReadyUids readyUids = new ReadyUids();
    for (String key : reevaluate) {
      PodState state = pods.get(key);
      if (state != null) {
        evaluate(state, now, readyUids);
      }
    }
    for (ServiceRef ref : touched) {
      refreshGauges(ref, readyUids);
    }
    serviceChanged.clear();
    slicesChanged.clear();
    podChanged.clear();
    reevaluate.clear();
    touched.clear();
    publish();
    scheduleGrace(now);
  }

  /** A Service changed: which of this node's pods of its namespace it selects now. */
  private void rescanMembers(ServiceRef ref) {
    ServiceState state = services.get(ref);
    Set<String> before = podsOfService.getOrDefault(ref, Set.of());
    Set<String> now = new HashSet<>();
    if (state != null && ServiceSelection.isControllerManaged(state.service)) {
      for (String key : podsByNamespace.getOrDefault(ref.namespace(), Set.of())) {
        PodState pod = pods.get(key);
        selectorChecks++;
        if (ServiceSelection.selects(state.service, pod.namespace(), labelsOf(pod.pod))) {
          now.add(key);
        }
      }
    }
    for (String key : before) {
      if (!now.contains(key)) {
        pods.get(key).services.remove(ref);
      }
    }
    for (String key : now) {
      pods.get(key).services.add(ref);
    }
    reevaluate.addAll(before);
    reevaluate.addAll(now);
    setMembers(ref, now);
    touched.add(ref);
  }

  /** A pod changed: which Services select it now, checking only the index's candidates. */
  private void rematch(PodState pod) {
    Map<String, String> labels = labelsOf(pod.pod);
    Set<ServiceRef> now = new HashSet<>();
    for (ServiceRef candidate : index.candidates(pod.namespace(), labels)) {
      selectorChecks++;
      if (ServiceSelection.selects(services.get(candidate).service, pod.namespace(), labels)) {
        now.add(candidate);
      }
    }
    for (ServiceRef ref : List.copyOf(pod.services)) {
      if (!now.contains(ref)) {
        pod.services.remove(ref);
        leave(ref, pod.key);
      }
    }
    for (ServiceRef ref : now) {
      if (pod.services.add(ref)) {
        podsOfService.computeIfAbsent(ref, r -> new HashSet<>()).add(pod.key);
        touched.add(ref);
      }
    }
  }

  private void leave(ServiceRef ref, String podKey) {
    Set<String> members = podsOfService.get(ref);
    if (members != null) {
      members.remove(podKey);
      if (members.isEmpty()) {
        podsOfService.remove(ref);
      }
    }
    touched.add(ref);
  }

  private void setMembers(ServiceRef ref, Set<String> members) {
    if (members.isEmpty()) {
      podsOfService.remove(ref);
    } else {
      podsOfService.put(ref, members);
    }
  }

  /** One pod against every port of every Service selecting it. */
  private void evaluate(PodState pod, long now, ReadyUids readyUids) {
    podEvaluations++;
    Set<DriftKey> holding = new HashSet<>();
    long due = Long.MAX_VALUE;
    for (ServiceRef ref : pod.services) {
      ServiceState service = services.get(ref);
      if (service == null || !PodStates.isExpected(pod.pod, service.service)) {
        continue;
      }
      for (ServicePort port : ServiceSelection.portsOf(service.service)) {
        String portName = ServiceSelection.portName(port);
        Optional<Missing> missing =
            EndpointCheck.check(pod.pod, port, readyUids.of(ref, portName), search);
        if (missing.isEmpty()) {
          continue;
        }
        DriftKey key = new DriftKey(ref, portName, pod.key);
        long expectedSince =
            Math.max(pod.expectedSince(), Math.max(service.changedAt, syncedAtNanos));
        DriftEntry reported = drifts.get(key);
        boolean alreadyReported = reported != null && reported.reason() == missing.get().reason();
        if (missing.get().reason().certain()
            || alreadyReported
            || now - expectedSince >= graceNanos) {
          report(pod, service, key, missing.get(), now, expectedSince);
          holding.add(key);
        } else {
          due = Math.min(due, expectedSince + graceNanos);
        }
      }
    }
    for (DriftKey key : List.copyOf(pod.reported)) {
      if (!holding.contains(key)) {
        clear(pod, key, "now an endpoint, or no longer expected to be");
      }
    }
    if (due == Long.MAX_VALUE) {
      pendingDue.remove(pod.key);
    } else {
      pendingDue.put(pod.key, due);
    }
  }

  private void report(
      PodState pod, ServiceState service, DriftKey key, Missing missing, long now, long since) {
    DriftEntry before = drifts.get(key);
    if (before != null && before.reason() == missing.reason()) {
      return; // one report per drift, not per evaluation
    }
    if (before != null) {
      gauges.add(key.service(), key.port(), before.reason(), -1);
    }
    DriftEntry entry =
        new DriftEntry(
            key.service().namespace(),
            key.service().name(),
            key.port(),
            pod.name(),
            pod.uid,
            missing.reason(),
            wallTimeOf(since, now),
            missing.message(),
            missing.declaredNames());
    drifts.put(key, entry);
    pod.reported.add(key);
    gauges.add(key.service(), key.port(), missing.reason(), +1);
    snapshotStale = true;
    LOG.warn(
        "drift: pod {}/{} on node {} is Ready but not an endpoint of Service {} port {}: {}: {}",
        entry.namespace(),
        entry.pod(),
        nodeName,
        key.service(),
        key.port().isEmpty() ? "(unnamed)" : key.port(),
        entry.reasonLabel(),
        entry.message());
    try {
      events.drifted(entry, pod.pod, service.service);
    } catch (RuntimeException e) {
      LOG.error("could not hand the drift of pod {} to the Event recorder", pod.key, e);
    }
  }

  private void clear(PodState pod, DriftKey key, String why) {
    DriftEntry entry = drifts.remove(key);
    pod.reported.remove(key);
    if (entry != null) {
      gauges.add(key.service(), key.port(), entry.reason(), -1);
      snapshotStale = true;
      LOG.info(
          "drift cleared: pod {} and Service {} port {} ({}; was {})",
          pod.key,
          key.service(),
          key.port().isEmpty() ? "(unnamed)" : key.port(),
          why,
          entry.reasonLabel());
    }
  }

  private void refreshGauges(ServiceRef ref, ReadyUids readyUids) {
    ServiceState service = services.get(ref);
    if (service == null || !podsOfService.containsKey(ref)) {
      gauges.drop(ref);
      return;
    }
    Map<String, Integer> byPort = new HashMap<>();
    for (ServicePort port : ServiceSelection.portsOf(service.service)) {
      String name = ServiceSelection.portName(port);
      byPort.put(name, readyUids.of(ref, name).size());
    }
    gauges.readyEndpoints(ref, byPort);
  }

  private void publish() {
    if (!snapshotStale) {
      return;
    }
    snapshotStale = false;
    List<DriftEntry> entries = new ArrayList<>(drifts.values());
    entries.sort(DriftEntry.ORDER);
    snapshot = new DriftSnapshot(DriftSnapshot.State.ON, "", entries);
  }

  /** One timer, at the earliest end of a grace still running. */
  private void scheduleGrace(long now) {
    long earliest = Long.MAX_VALUE;
    for (long due : pendingDue.values()) {
      earliest = Math.min(earliest, due);
    }
    if (graceTimer != null && graceTimerDue == earliest) {
      return;
    }
    if (graceTimer != null) {
      graceTimer.cancel();
      graceTimer = null;
    }
    if (earliest != Long.MAX_VALUE) {
      graceTimerDue = earliest;
      graceTimer = scheduler.schedule(Math.max(0, earliest - now), this::graceEnded);
    }
  }

  private void graceEnded() {
    graceTimer = null;
    long now = scheduler.nanoTime();
    pendingDue.forEach(
        (pod, due) -> {
          if (due <= now) {
            reevaluate.add(pod);
          }
        });
    if (flushTimer != null) {
      flushTimer.cancel();
    }
    flush();
  }

  private Instant wallTimeOf(long nanos, long now) {
    return wallClock.instant().minusNanos(Math.max(0, now - nanos));
  }

  // ---- helpers ---------------------------------------------------------------------------------

  private boolean onThisNode(Pod pod) {
    return pod.getSpec() != null && nodeName.equals(pod.getSpec().getNodeName());
  }

  private static String keyOf(HasMetadata object) {
    ObjectMeta meta = object == null ? null : object.getMetadata();
    if (meta == null || meta.getName() == null || meta.getNamespace() == null) {
      return null;
    }
    return meta.getNamespace() + "/" + meta.getName();
  }

  private static String namespaceOf(HasMetadata object) {
    return object.getMetadata().getNamespace();
  }

  private static ServiceRef refOf(Service service) {
    ObjectMeta meta = service == null ? null : service.getMetadata();
    if (meta == null || meta.getName() == null || meta.getNamespace() == null) {
      return null;
    }
    return new ServiceRef(meta.getNamespace(), meta.getName());
  }

  private static ServiceRef ownerOf(EndpointSlice slice) {
    Map<String, String> labels = slice.getMetadata().getLabels();
    String service = labels == null ? null : labels.get(SERVICE_NAME_LABEL);
    return service == null || service.isEmpty()
        ? null
        : new ServiceRef(slice.getMetadata().getNamespace(), service);
  }

  /** The same object version: what a relist hands over again for every unchanged object. */
  private static boolean sameVersion(HasMetadata known, HasMetadata listed) {
    String version = resourceVersion(listed);
    return version != null && version.equals(resourceVersion(known));
  }

  private static String resourceVersion(HasMetadata object) {
    return object.getMetadata() == null ? null : object.getMetadata().getResourceVersion();
  }

  private static Map<String, String> labelsOf(Pod pod) {
    Map<String, String> labels = pod.getMetadata().getLabels();
    return labels == null ? Map.of() : labels;
  }

  /** The ready uids per Service port, computed once per evaluation round. */
  private final class ReadyUids {
    private final Map<ServiceRef, Map<String, Set<String>>> cache = new HashMap<>();

    Set<String> of(ServiceRef ref, String portName) {
      return cache
          .computeIfAbsent(ref, r -> new HashMap<>())
          .computeIfAbsent(
              portName,
              name ->
                  ControllerSlices.readyUidsWithPort(
                      slices.getOrDefault(ref, Map.of()).values(), name));
    }
  }

  /** A drift's identity: one pod, one Service port. */
  private record DriftKey(ServiceRef service, String port, String pod) {}

  private static final class PodState {
    final String key;
    final String uid;
    final long firstSeen;
    Pod pod;
    long readySince = -1;
    final Set<ServiceRef> services = new HashSet<>();
    final Set<DriftKey> reported = new HashSet<>();

    PodState(String key, Pod pod, long firstSeen) {
      this.key = key;
      this.uid = PodStates.uidOf(pod);
      this.firstSeen = firstSeen;
      this.pod = pod;
    }

    String namespace() {
      return pod.getMetadata().getNamespace();
    }

    String name() {
      return pod.getMetadata().getName();
    }

    /** Since when it should be an endpoint: its Ready transition, or (not Ready) first sight. */
    long expectedSince() {
      return readySince >= 0 ? readySince : firstSeen;
    }
  }

  private static final class ServiceState {
    Service service;
    long changedAt;

    ServiceState(Service service, long changedAt) {
      this.service = service;
      this.changedAt = changedAt;
    }
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

    DriftInput(Watched input, Upsert<T> upsert, Upsert<T> delete, Listed<T> listed) {
      this.input = input;
      this.upsert = upsert;
      this.delete = delete;
      this.listed = listed;
    }

    @Override
    public void replaced(Generation<T> previous, Generation<T> next) {
      guarded("sync", () -> sync(next.objects()));
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
}
