package dev.routesync.drift;

import dev.routesync.rules.EndpointCheck;
import dev.routesync.rules.Missing;
import dev.routesync.rules.PodStates;
import dev.routesync.rules.PortSearch;
import dev.routesync.rules.ServiceSelection;
import io.fabric8.kubernetes.api.model.ServicePort;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The verdicts, one pod at a time: for each port of each Service selecting the pod, whether it
 * drifts, and whether that is reported yet. Certain reasons are reported at once; {@code
 * NotInEndpoints} only once the grace has passed since the latest of the pod's Ready transition,
 * the Service's change and the last sync; until then the pod's grace end is kept (for the {@link
 * GraceTimer}). A drift already reported stays reported while its reason holds. Each new drift gets
 * one WARN line and one hand-over to the Event recorder; each report and clear moves the gauges; a
 * changed set of drifts becomes a new {@link DriftSnapshot}.
 *
 * <p>Threading: the sync context.
 */
final class PortVerdicts {

  // The detector's logger: operators filter its lines by that one name, wherever they come from.
  private static final Logger LOG = LoggerFactory.getLogger(DriftDetector.class);

  private final String nodeName;
  private final long graceNanos;
  private final Clock wallClock;
  private final PortSearch search;
  private final DriftEvents events;
  private final DriftGauges gauges;
  private final Function<ServiceRef, ServiceState> services;

  private final Map<DriftKey, DriftEntry> drifts = new HashMap<>();
  private final Map<String, Long> pendingDue = new HashMap<>(); // pod -> earliest grace end
  private boolean snapshotStale;
  private long podEvaluations;

  /**
   * @param services the watched Services' states ({@code null} for one not watched)
   */
  PortVerdicts(
      String nodeName,
      long graceNanos,
      Clock wallClock,
      PortSearch search,
      DriftEvents events,
      DriftGauges gauges,
      Function<ServiceRef, ServiceState> services) {
    this.nodeName = nodeName;
    this.graceNanos = graceNanos;
    this.wallClock = wallClock;
    this.search = search;
    this.events = events;
    this.gauges = gauges;
    this.services = services;
  }

  /** Pods evaluated so far. */
  long podEvaluations() {
    return podEvaluations;
  }

  /**
   * One pod against every port of every Service selecting it.
   *
   * @param syncedAtNanos the last sync of any watch: a grace starts no earlier
   */
  void evaluate(PodState pod, long now, long syncedAtNanos, ReadyUids readyUids) {
    podEvaluations++;
    Set<DriftKey> holding = new HashSet<>();
    long due = GraceTimer.NONE;
    for (ServiceRef ref : pod.services) {
      ServiceState service = services.apply(ref);
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
    if (due == GraceTimer.NONE) {
      pendingDue.remove(pod.key);
    } else {
      pendingDue.put(pod.key, due);
    }
  }

  /** The pod is gone: its drifts clear, its grace ends unreported. */
  void forget(PodState pod) {
    for (DriftKey drift : List.copyOf(pod.reported)) {
      clear(pod, drift, "pod deleted");
    }
    pendingDue.remove(pod.key);
  }

  /** The pods whose grace is still running. */
  Set<String> inGrace() {
    return pendingDue.keySet();
  }

  /** The earliest end of a grace still running, or {@link GraceTimer#NONE}. */
  long earliestGraceEnd() {
    long earliest = GraceTimer.NONE;
    for (long due : pendingDue.values()) {
      earliest = Math.min(earliest, due);
    }
    return earliest;
  }

  /** Adds to {@code into} the pods whose grace has ended by {@code now}. */
  void graceEndedBy(long now, Set<String> into) {
    pendingDue.forEach(
        (pod, due) -> {
          if (due <= now) {
            into.add(pod);
          }
        });
  }

  /**
   * The Service's gauges: its ready endpoints per port while it has pods here, none once it has
   * not.
   */
  void refreshGauges(
      ServiceRef ref, ServiceState service, boolean hasMembers, ReadyUids readyUids) {
    if (service == null || !hasMembers) {
      gauges.drop(ref);
      return;
    }
    Map<String, Integer> byPort = new HashMap<>();
    for (ServicePort port : ServiceSelection.portsOf(service.service)) {
      String name = ServiceSelection.portName(port);
      byPort.put(name, readyUids.count(ref, name));
    }
    gauges.readyEndpoints(ref, byPort);
  }

  /** The next snapshot must be published even if no drift changed (the detector turned on). */
  void markSnapshotStale() {
    snapshotStale = true;
  }

  /** A new snapshot if the drifts changed since the last one. */
  Optional<DriftSnapshot> changedSnapshot() {
    if (!snapshotStale) {
      return Optional.empty();
    }
    snapshotStale = false;
    List<DriftEntry> entries = new ArrayList<>(drifts.values());
    entries.sort(DriftEntry.ORDER);
    return Optional.of(new DriftSnapshot(DriftSnapshot.State.ON, "", entries));
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
    LOG.atWarn()
        .addKeyValue("namespace", entry.namespace())
        .addKeyValue("pod", entry.pod())
        .addKeyValue("service", entry.service())
        .addKeyValue("port", entry.port())
        .addKeyValue("reason", entry.reasonLabel())
        .log(
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
      LOG.atInfo()
          .addKeyValue("namespace", entry.namespace())
          .addKeyValue("pod", entry.pod())
          .addKeyValue("service", entry.service())
          .addKeyValue("port", entry.port())
          .addKeyValue("reason", entry.reasonLabel())
          .log(
              "drift cleared: pod {} and Service {} port {} ({}; was {})",
              pod.key,
              key.service(),
              key.port().isEmpty() ? "(unnamed)" : key.port(),
              why,
              entry.reasonLabel());
    }
  }

  /** The wall time of monotonic {@code nanos}, {@code now} being the monotonic present. */
  private Instant wallTimeOf(long nanos, long now) {
    return wallClock.instant().minusNanos(Math.max(0, now - nanos));
  }
}
