package dev.routesync.table;

import java.util.List;

/**
 * kube-proxy's topology decision ({@code pkg/proxy/topology.go}: {@code CategorizeEndpoints},
 * {@code topologyModeFromHints}), for one Service on one node, over the Service's routable
 * endpoints (the ready ones, or when none is ready the serving terminating ones):
 *
 * <ul>
 *   <li>{@code internalTrafficPolicy: Local}: this node's ready endpoints; when none of them is
 *       ready, this node's serving terminating ones (the table keeps those beside the ready ones
 *       for a Local Service, {@link TopologyDecision#localTerminating()}), even while another node
 *       has a ready endpoint; none here is {@link TopologyDecision.Mode#NO_LOCAL_ENDPOINT}, never a
 *       remote endpoint. Hints do not apply.
 *   <li>same-node when every ready endpoint has a node hint and one names this node;
 *   <li>else same-zone when every ready endpoint has a zone hint and one names this node's zone;
 *   <li>else none: every endpoint. No ready endpoint means no hints to consider.
 * </ul>
 *
 * A pure function: one pass over the endpoints, stopping at the first ready endpoint without hints
 * (the usual Service), so it costs nothing measurable at publish.
 */
public final class TopologyRule {

  private TopologyRule() {}

  public static TopologyDecision decide(
      List<Endpoint> endpoints, ServiceTraffic traffic, NodeLocality here) {
    if (traffic.internalLocal()) {
      return local(endpoints, here);
    }
    boolean anyReady = false;
    boolean anyHint = false;
    boolean allNodeHints = true;
    boolean forNode = false;
    boolean allZoneHints = true;
    boolean forZone = false;
    for (Endpoint endpoint : endpoints) {
      if (!endpoint.ready()) {
        continue;
      }
      anyReady = true;
      EndpointHints hints = endpoint.hints();
      if (hints.isEmpty()) {
        // No rule can apply now. The usual Service ends here, unless another ready endpoint has
        // hints: then it is a fallback worth reporting.
        return anyHint || anyHintedReady(endpoints)
            ? fallback(TopologyDecision.Fallback.MISSING_HINTS, here)
            : TopologyDecision.NONE;
      }
      anyHint = true;
      if (hints.forNodes().isEmpty()) {
        allNodeHints = false;
      } else if (hints.hasNode(here.node())) {
        forNode = true;
      }
      if (hints.forZones().isEmpty()) {
        allZoneHints = false;
      } else if (hints.hasZone(here.zone())) {
        forZone = true;
      }
    }
    if (!anyReady || !anyHint) {
      return TopologyDecision.NONE;
    }
    if (allNodeHints && forNode) {
      return new TopologyDecision(TopologyDecision.Mode.SAME_NODE, null, here.node(), here.zone());
    }
    if (allZoneHints && forZone) {
      return new TopologyDecision(TopologyDecision.Mode.SAME_ZONE, null, here.node(), here.zone());
    }
    return fallback(
        !allZoneHints
            ? TopologyDecision.Fallback.MISSING_HINTS
            : here.zone() == null
                ? TopologyDecision.Fallback.NODE_ZONE_UNKNOWN
                : TopologyDecision.Fallback.NO_HINT_FOR_ZONE,
        here);
  }

  private static boolean anyHintedReady(List<Endpoint> endpoints) {
    for (Endpoint endpoint : endpoints) {
      if (endpoint.ready() && !endpoint.hints().isEmpty()) {
        return true;
      }
    }
    return false;
  }

  private static TopologyDecision fallback(TopologyDecision.Fallback why, NodeLocality here) {
    return new TopologyDecision(TopologyDecision.Mode.NONE, why, here.node(), here.zone());
  }

  private static TopologyDecision local(List<Endpoint> endpoints, NodeLocality here) {
    boolean servingTerminatingHere = false;
    if (here.node() != null) {
      for (Endpoint endpoint : endpoints) {
        if (!here.node().equals(endpoint.node())) {
          continue;
        }
        if (endpoint.ready()) {
          return new TopologyDecision(TopologyDecision.Mode.LOCAL, null, here.node(), here.zone());
        }
        servingTerminatingHere |= endpoint.serving() && endpoint.terminating();
      }
    }
    if (servingTerminatingHere) {
      return new TopologyDecision(
          TopologyDecision.Mode.LOCAL,
          null,
          here.node(),
          here.zone(),
          /* localTerminating= */ true);
    }
    return new TopologyDecision(
        TopologyDecision.Mode.NO_LOCAL_ENDPOINT, null, here.node(), here.zone());
  }
}
