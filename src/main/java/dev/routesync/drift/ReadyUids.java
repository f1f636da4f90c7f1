package dev.routesync.drift;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The ready endpoints per Service port, each computed at most once per evaluation round: every pod
 * of a Service, and its gauges, need the same figures, and the slices do not change within a round.
 *
 * <p>Two figures per port, from the {@link NodeSlice}s carrying it: the uids of this node's ready
 * pods (what {@link dev.routesync.rules.EndpointCheck#check} looks a pod of this node up in: the
 * same answer as the uids of every node, for a pod that runs here), and the count of ready pods on
 * every node, for the gauge. The count is the sum of each slice's distinct ready pods, per address
 * family (a dual-stack Service's pods are in one slice of each; the larger family's sum is the
 * count): a pod listed in two slices of one family at once counts twice. That happens only while
 * the EndpointSlice controller moves endpoints between slices (a slice replaced by a new one, say:
 * it creates the new one before it deletes the old), between its two writes, which the debounce
 * mostly coalesces into one round; the next write corrects the gauge. The exact union would mean
 * keeping the uid of every endpoint of every slice of the cluster: the memory {@link NodeSlice}
 * exists to save. Verdicts are unaffected: a pod of this node is found by uid, duplicates or not.
 *
 * <p>Threading: the sync context; one instance per round, dropped after it.
 */
final class ReadyUids {

  /** One port's ready endpoints: this node's uids, and the count on every node. */
  record PortReadiness(Set<String> here, int cluster) {}

  private final SliceStore slices;
  private final Map<ServiceRef, Map<String, PortReadiness>> cache = new HashMap<>();

  ReadyUids(SliceStore slices) {
    this.slices = slices;
  }

  /** The uids of this node's pods listed ready with the port. */
  Set<String> of(ServiceRef ref, String portName) {
    return readiness(ref, portName).here();
  }

  /** The ready endpoints with the port, on every node. */
  int count(ServiceRef ref, String portName) {
    return readiness(ref, portName).cluster();
  }

  private PortReadiness readiness(ServiceRef ref, String portName) {
    return cache
        .computeIfAbsent(ref, r -> new HashMap<>())
        .computeIfAbsent(portName, name -> compute(ref, name));
  }

  private PortReadiness compute(ServiceRef ref, String portName) {
    Set<String> here = new HashSet<>();
    // Per address family: a dual-stack Service lists every pod in an IPv4 and an IPv6 slice, and
    // each pod is one endpoint.
    int ipv4 = 0;
    int ipv6 = 0;
    for (NodeSlice slice : slices.of(ref)) {
      if (slice.carries(portName)) {
        here.addAll(slice.readyHere());
        if (slice.ipv6()) {
          ipv6 += slice.readyPods();
        } else {
          ipv4 += slice.readyPods();
        }
      }
    }
    return new PortReadiness(here, Math.max(ipv4, ipv6));
  }
}
