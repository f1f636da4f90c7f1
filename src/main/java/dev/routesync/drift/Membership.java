package dev.routesync.drift;

import static dev.routesync.drift.ObjectKeys.labelsOf;
import static dev.routesync.drift.ObjectKeys.refOf;
import static dev.routesync.drift.ObjectKeys.resourceVersion;
import static dev.routesync.drift.ObjectKeys.sameVersion;

import dev.routesync.rules.CompactServices;
import dev.routesync.rules.ServiceSelection;
import io.fabric8.kubernetes.api.model.Service;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The watched Services, and which of this node's pods each one selects (its members here; {@link
 * PodState#services} is the reverse). Kept up to date cheaply: a Service change rescans only this
 * node's pods of its namespace, and a pod change checks only the Services the {@link SelectorIndex}
 * files under one of its labels. Every membership change marks the Service touched (its gauges) and
 * its pods to re-evaluate in the {@link PendingWork}.
 *
 * <p>Threading: the sync context.
 */
final class Membership {

  private final NodePods pods;
  private final PendingWork work;
  private final Map<ServiceRef, ServiceState> services = new HashMap<>();
  private final SelectorIndex index = new SelectorIndex();
  private final Map<ServiceRef, Set<String>> podsOfService = new HashMap<>();
  private long selectorChecks;

  Membership(NodePods pods, PendingWork work) {
    this.pods = pods;
    this.work = work;
  }

  /** The Service's state, or {@code null} if it is not watched (any more). */
  ServiceState service(ServiceRef ref) {
    return services.get(ref);
  }

  Set<ServiceRef> serviceRefs() {
    return services.keySet();
  }

  /** The keys of this node's pods the Service selects (empty if none). */
  Set<String> membersOf(ServiceRef ref) {
    return podsOfService.getOrDefault(ref, Set.of());
  }

  boolean hasMembers(ServiceRef ref) {
    return podsOfService.containsKey(ref);
  }

  /** Service selectors matched against a pod's labels so far. */
  long selectorChecks() {
    return selectorChecks;
  }

  // ---- the Services watch ----------------------------------------------------------------------

  void serviceUpserted(Service decoded, long at) {
    ServiceRef ref = refOf(decoded);
    if (ref == null) {
      return;
    }
    // Kept for as long as the Service is watched: only what the rules read. The agent's Services
    // watch hands over compact Services already (its store compacts them), and this keeps them as
    // they are; a whole one (a test's, a benchmark's) is reduced here.
    Service service = CompactServices.compact(decoded);
    ServiceState state = services.get(ref);
    Service before = null;
    if (state == null) {
      services.put(ref, new ServiceState(service, at));
    } else {
      before = state.service;
      if (!Objects.equals(resourceVersion(state.service), resourceVersion(service))) {
        state.changedAt = at;
      }
      state.service = service;
    }
    index.put(ref, before, service);
    work.servicesChanged.add(ref);
    work.scheduleRound();
  }

  void serviceDeleted(Service service) {
    ServiceRef ref = refOf(service);
    ServiceState gone = ref == null ? null : services.remove(ref);
    if (gone != null) {
      index.remove(ref, gone.service);
      work.servicesChanged.add(ref);
      work.scheduleRound();
    }
  }

  /** A whole list: Services not in it are gone; only new or changed ones count as changes. */
  void servicesListed(Collection<Service> listed, long at) {
    Set<ServiceRef> refs = new HashSet<>();
    listed.forEach(s -> refs.add(refOf(s)));
    for (ServiceRef known : List.copyOf(services.keySet())) {
      if (!refs.contains(known)) {
        index.remove(known, services.remove(known).service);
        work.servicesChanged.add(known);
      }
    }
    for (Service service : listed) {
      ServiceState known = services.get(refOf(service));
      if (known == null || !sameVersion(known.service, service)) {
        serviceUpserted(service, at);
      } else {
        // Unchanged: hold the listed instance (the new generation's store holds it) rather than
        // the old generation's, which would then be the only one left holding that copy.
        Service compact = CompactServices.compact(service);
        if (compact.equals(known.service)) {
          known.service = compact;
        }
      }
    }
  }

  // ---- members ---------------------------------------------------------------------------------

  /** A Service changed: which of this node's pods of its namespace it selects now. */
  void rescan(ServiceRef ref) {
    ServiceState state = services.get(ref);
    Set<String> before = podsOfService.getOrDefault(ref, Set.of());
    Set<String> now = new HashSet<>();
    if (state != null && ServiceSelection.isControllerManaged(state.service)) {
      for (String key : pods.inNamespace(ref.namespace())) {
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
    work.reevaluate.addAll(before);
    work.reevaluate.addAll(now);
    setMembers(ref, now);
    work.touched.add(ref);
  }

  /** A pod changed: which Services select it now, checking only the index's candidates. */
  void rematch(PodState pod) {
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
        work.touched.add(ref);
      }
    }
  }

  /** The pod is gone from this node: every Service selecting it loses it. */
  void leaveAll(PodState pod) {
    for (ServiceRef service : pod.services) {
      leave(service, pod.key);
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
    work.touched.add(ref);
  }

  private void setMembers(ServiceRef ref, Set<String> members) {
    if (members.isEmpty()) {
      podsOfService.remove(ref);
    } else {
      podsOfService.put(ref, members);
    }
  }
}
