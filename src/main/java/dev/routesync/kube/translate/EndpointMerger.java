package dev.routesync.kube.translate;

import dev.routesync.table.Endpoint;
import dev.routesync.table.Port;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Collects endpoints from all objects of one service, publishing each IP once.
 *
 * <p>When the same IP appears twice (two slices of one service, or two subsets of one Endpoints
 * object), its ports are unioned and the conditions of the ready copy win, so a stale not-ready
 * duplicate never hides a ready address.
 */
final class EndpointMerger {

  private final Map<String, Endpoint> byIp = new HashMap<>();

  void add(Endpoint endpoint) {
    Endpoint existing = byIp.get(endpoint.ip());
    if (existing == null) {
      byIp.put(endpoint.ip(), endpoint);
      return;
    }
    Endpoint winner = rank(endpoint) > rank(existing) ? endpoint : existing;
    List<Port> ports = existing.ports();
    if (!existing.ports().equals(endpoint.ports())) {
      TreeSet<Port> union = new TreeSet<>(existing.ports());
      union.addAll(endpoint.ports());
      ports = List.copyOf(union);
    }
    byIp.put(
        endpoint.ip(),
        new Endpoint(
            winner.ip(),
            ports,
            winner.zone(),
            winner.node(),
            winner.pod(),
            winner.ready(),
            winner.serving(),
            winner.terminating()));
  }

  private static int rank(Endpoint endpoint) {
    return endpoint.ready() ? 2 : endpoint.serving() ? 1 : 0;
  }

  /** Every endpoint added, one per IP, whatever its conditions, sorted by IP. */
  List<Endpoint> all() {
    List<Endpoint> all = new ArrayList<>(byIp.values());
    all.sort(null);
    return all;
  }

  /**
   * The endpoints to route to, sorted by IP: the ready ones; or, when none is ready, the ones that
   * are still serving while terminating (kube-proxy's fallback, KEP-1669), so sidecars drain
   * instead of black-holing; or none.
   */
  List<Endpoint> routable() {
    List<Endpoint> ready = new ArrayList<>();
    List<Endpoint> servingTerminating = new ArrayList<>();
    for (Endpoint endpoint : byIp.values()) {
      if (endpoint.ready()) {
        ready.add(endpoint);
      } else if (endpoint.serving() && endpoint.terminating()) {
        servingTerminating.add(endpoint);
      }
    }
    List<Endpoint> chosen = ready.isEmpty() ? servingTerminating : ready;
    chosen.sort(null);
    return chosen;
  }
}
