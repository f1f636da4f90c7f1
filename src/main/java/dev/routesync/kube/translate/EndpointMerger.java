package dev.routesync.kube.translate;

import dev.routesync.table.Endpoint;
import dev.routesync.table.Port;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * Collects endpoints from all objects of one service, publishing each IP once.
 *
 * <p>When the same IP appears twice (two slices of one service, or two subsets of one Endpoints
 * object), its ports are unioned and the conditions of the ready copy win, so a stale not-ready
 * duplicate never hides a ready address.
 *
 * <p>Duplicates are found by sorting: the endpoints are sorted by address (a stable sort, so the
 * copies of one address stay in the order they were added) and each run of one address is folded
 * left to right. No address text is made and no map is built.
 */
final class EndpointMerger {

  private final List<Endpoint> added = new ArrayList<>();

  void add(Endpoint endpoint) {
    added.add(endpoint);
  }

  private static Endpoint merge(Endpoint existing, Endpoint endpoint) {
    Endpoint winner = rank(endpoint) > rank(existing) ? endpoint : existing;
    List<Port> ports = existing.ports();
    if (!existing.ports().equals(endpoint.ports())) {
      TreeSet<Port> union = new TreeSet<>(existing.ports());
      union.addAll(endpoint.ports());
      ports = List.copyOf(union);
    }
    return ports == winner.ports() ? winner : winner.withPorts(ports);
  }

  private static int rank(Endpoint endpoint) {
    return endpoint.ready() ? 2 : endpoint.serving() ? 1 : 0;
  }

  /** Every endpoint added, one per IP, whatever its conditions, sorted by IP. */
  List<Endpoint> all() {
    added.sort(null);
    List<Endpoint> all = new ArrayList<>(added.size());
    for (int i = 0; i < added.size(); ) {
      Endpoint endpoint = added.get(i++);
      while (i < added.size() && added.get(i).sameAddress(endpoint)) {
        endpoint = merge(endpoint, added.get(i++));
      }
      all.add(endpoint);
    }
    return all;
  }

  /**
   * The endpoints to route to, sorted by IP: the ready ones; or, when none is ready, the ones that
   * are still serving while terminating (kube-proxy's fallback, KEP-1669), so sidecars drain
   * instead of black-holing; or none. A dual-stack pod's two endpoints are one ({@link
   * DualStackPairs}), its primary address IPv4.
   */
  List<Endpoint> routable() {
    return routable(/* ipv6Primary= */ false);
  }

  /**
   * {@link #routable()}, a dual-stack pod's primary address of the family the Service names first.
   */
  List<Endpoint> routable(boolean ipv6Primary) {
    return routableOf(DualStackPairs.pair(all(), ipv6Primary));
  }

  /**
   * The endpoints of a Service with {@code internalTrafficPolicy: Local}, sorted by IP: the ready
   * ones and, beside them, every serving terminating one. kube-proxy picks per node (this node's
   * ready ones, else this node's serving terminating ones), so a serving terminating pod on this
   * node is needed while another node still has a ready one; the table keeps it and {@code
   * TopologyRule} chooses. Only Local Services pay for the extra endpoints.
   */
  List<Endpoint> routableForLocal(boolean ipv6Primary) {
    List<Endpoint> kept = new ArrayList<>();
    for (Endpoint endpoint : DualStackPairs.pair(all(), ipv6Primary)) {
      if (endpoint.ready() || (endpoint.serving() && endpoint.terminating())) {
        kept.add(endpoint);
      }
    }
    return kept;
  }

  private static List<Endpoint> routableOf(List<Endpoint> all) {
    List<Endpoint> ready = new ArrayList<>();
    List<Endpoint> servingTerminating = new ArrayList<>();
    for (Endpoint endpoint : all) {
      if (endpoint.ready()) {
        ready.add(endpoint);
      } else if (endpoint.serving() && endpoint.terminating()) {
        servingTerminating.add(endpoint);
      }
    }
    return ready.isEmpty() ? servingTerminating : ready;
  }
}
