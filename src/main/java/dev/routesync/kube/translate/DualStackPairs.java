package dev.routesync.kube.translate;

import dev.routesync.table.Endpoint;
import dev.routesync.table.Port;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * Makes one endpoint of a dual-stack pod's two: the EndpointSlice controller lists such a pod once
 * in its Service's IPv4 slice and once in its IPv6 slice, both with a {@code targetRef} to the pod,
 * and a client should see one backend with two addresses, not two backends.
 *
 * <p>Identity is the target pod's name (the Service's namespace is the pod's). Two endpoints pair
 * only when a pod has exactly one address of each family; endpoints without a pod target are never
 * paired, and a pod named twice in one family (a StatefulSet pod recreated while the slices still
 * list its predecessor) keeps its endpoints apart, as they were, since which address goes with
 * which cannot be told.
 *
 * <p>The pair keeps the primary family's copy (the Service's first {@code ipFamilies}; IPv4 when
 * not known) with the other's address as its additional address, and the ports of both. Its
 * conditions are the ones that route less: ready and serving only when both copies say so,
 * terminating when either does. Both copies are written from one pod's status; they differ only
 * between the controller's writes of the two slices, and then the newer one is the more cautious
 * one for the changes that matter (a pod starting to terminate, failing readiness), while a pod
 * becoming ready waits for its second slice: a fraction of a second of lost capacity rather than
 * new calls to a pod one copy says is going away.
 */
final class DualStackPairs {

  private DualStackPairs() {}

  /**
   * @param all endpoints sorted by address, one per address (single-address endpoints)
   * @param ipv6Primary whether the Service's first IP family is IPv6
   * @return the same list when it holds one family only (every single-stack Service), else the
   *     endpoints with each pod's pair made one, sorted by primary address
   */
  static List<Endpoint> pair(List<Endpoint> all, boolean ipv6Primary) {
    if (!bothFamilies(all)) {
      return all;
    }
    List<Endpoint> out = new ArrayList<>(all.size());
    List<Endpoint> ofPods = new ArrayList<>(all.size());
    for (Endpoint endpoint : all) {
      if (endpoint.hasPod() && endpoint.additionalAddresses().isEmpty()) {
        ofPods.add(endpoint);
      } else {
        out.add(endpoint);
      }
    }
    // A stable sort: one pod's endpoints stay in address order.
    ofPods.sort(Endpoint::comparePod);
    for (int i = 0; i < ofPods.size(); ) {
      int end = i + 1;
      while (end < ofPods.size() && ofPods.get(end).samePod(ofPods.get(i))) {
        end++;
      }
      Endpoint first = ofPods.get(i);
      if (end - i == 2 && first.isIpv4() != ofPods.get(i + 1).isIpv4()) {
        Endpoint second = ofPods.get(i + 1);
        boolean firstIsPrimary = first.isIpv4() != ipv6Primary;
        out.add(firstIsPrimary ? merged(first, second) : merged(second, first));
      } else {
        out.addAll(ofPods.subList(i, end));
      }
      i = end;
    }
    out.sort(null);
    return out;
  }

  private static boolean bothFamilies(List<Endpoint> all) {
    boolean ipv4 = false;
    boolean ipv6 = false;
    for (Endpoint endpoint : all) {
      if (endpoint.isIpv4()) {
        ipv4 = true;
      } else {
        ipv6 = true;
      }
      if (ipv4 && ipv6) {
        return true;
      }
    }
    return false;
  }

  private static Endpoint merged(Endpoint primary, Endpoint other) {
    Endpoint pair =
        primary
            .withConditions(
                primary.ready() && other.ready(),
                primary.serving() && other.serving(),
                primary.terminating() || other.terminating())
            .withAdditionalAddresses(List.of(other.ip()));
    if (!primary.ports().equals(other.ports())) {
      TreeSet<Port> union = new TreeSet<>(primary.ports());
      union.addAll(other.ports());
      pair = pair.withPorts(List.copyOf(union));
    }
    return pair;
  }
}
