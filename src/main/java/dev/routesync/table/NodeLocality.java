package dev.routesync.table;

/**
 * Where this agent runs: its node's name, and the zone and region from the node's {@code
 * topology.kubernetes.io/zone} and {@code topology.kubernetes.io/region} labels. What the topology
 * decisions are made for.
 *
 * @param node the node's name, or null when not known (no {@code --node-name})
 * @param zone the node's zone, or null when not known (no label, or the Node not read yet)
 * @param region the node's region, or null when not known
 */
public record NodeLocality(String node, String zone, String region) {

  /** Nothing known: no node-local endpoint, no zone to prefer. */
  public static final NodeLocality UNKNOWN = new NodeLocality(null, null, null);

  public NodeLocality {
    node = blankToNull(node);
    zone = blankToNull(zone);
    region = blankToNull(region);
  }

  /** This locality with another zone and region (the node stays). */
  public NodeLocality withZone(String zone, String region) {
    return new NodeLocality(node, zone, region);
  }

  private static String blankToNull(String text) {
    return text == null || text.isBlank() ? null : text.intern();
  }
}
