package dev.routesync.kube;

import dev.routesync.table.NodeLocality;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where this node is, for the topology decisions: its name (from {@code --node-name}) and its zone
 * and region, from its own Node object's labels ({@link NodeLabels}), or from {@code --zone}, which
 * overrides the lookup (tests, the demo, a cluster without zone labels).
 *
 * <p>Until the Node has been read the zone is unknown, so hints are not followed (kube-proxy's
 * fallback for a node without a zone label); when the zone arrives, {@code changed} runs so that
 * every Service is decided again. A node without the label is logged once; each Service that falls
 * back for it is counted by the table's fallback metric.
 *
 * <p>Threading: {@link #get} from any thread; {@link #learned} from one thread at a time.
 */
public final class NodeTopology implements Supplier<NodeLocality> {

  private static final Logger LOG = LoggerFactory.getLogger(NodeTopology.class);

  private final Runnable changed;
  private final boolean fixed;
  private volatile NodeLocality current;
  private boolean failureLogged;

  private NodeTopology(NodeLocality initial, boolean fixed, Runnable changed) {
    this.current = initial;
    this.fixed = fixed;
    this.changed = changed;
  }

  /**
   * @param nodeName this node's name, empty when unknown (then nothing is looked up: no node-local
   *     endpoint, no zone)
   * @param zoneOverride {@code --zone}: when present, the zone, and the Node is not read
   * @param changed run after the locality changed (re-decide every Service)
   */
  public static NodeTopology of(String nodeName, Optional<String> zoneOverride, Runnable changed) {
    return zoneOverride
        .map(zone -> new NodeTopology(new NodeLocality(nodeName, zone, null), true, changed))
        .orElseGet(() -> new NodeTopology(new NodeLocality(nodeName, null, null), false, changed));
  }

  @Override
  public NodeLocality get() {
    return current;
  }

  /** Whether the Node must be read: a node name is known and no {@code --zone} was given. */
  public boolean needsLookup() {
    return !fixed && current.node() != null;
  }

  /**
   * Takes a lookup's answer.
   *
   * @return whether to look again later: the API server could not be asked (a transport error or a
   *     refusal that may be fixed by granting RBAC)
   */
  public boolean learned(NodeLabels.Answer answer) {
    String node = current.node();
    if (answer.failure().isPresent()) {
      var failure = answer.failure().get();
      if (failureLogged) {
        LOG.debug("cannot read node {} for its zone yet: {}", node, failure.getMessage());
        return true;
      }
      failureLogged = true;
      LOG.warn(
          "cannot read node {} for its zone ({}): topology hints are not followed until it is"
              + " read (retrying; logged once){}",
          node,
          failure.getCode() > 0 ? "HTTP " + failure.getCode() : failure.getMessage(),
          failure.getCode() == 403 ? " (the service account needs get on nodes)" : "");
      return true;
    }
    if (!answer.found()) {
      LOG.warn("node {} not found: topology hints are not followed on this node", node);
      return false;
    }
    if (answer.zone().isEmpty()) {
      LOG.warn(
          "node {} has no {} label: topology hints are not followed on this node (as kube-proxy)",
          node,
          NodeLabels.ZONE_LABEL);
      return false;
    }
    NodeLocality next = current.withZone(answer.zone().get(), answer.region().orElse(null));
    if (!next.equals(current)) {
      current = next;
      LOG.info("node {} is in zone {} (region {})", node, next.zone(), next.region());
      changed.run();
    }
    return false;
  }
}
