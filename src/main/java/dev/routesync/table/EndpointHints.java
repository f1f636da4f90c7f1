package dev.routesync.table;

import java.util.List;

/**
 * An endpoint's EndpointSlice {@code hints}: the zones and nodes whose clients should route to it
 * ({@code forZones[].name}, {@code forNodes[].name}). The EndpointSlice controller writes them for
 * a Service with {@code trafficDistribution} (or topology-aware routing); most endpoints have none,
 * and then share {@link #NONE}.
 *
 * @param forZones zone names, sorted, no duplicates, interned
 * @param forNodes node names, sorted, no duplicates, interned
 */
public record EndpointHints(List<String> forZones, List<String> forNodes) {

  /** No hints: the one instance every hint-less endpoint shares. */
  public static final EndpointHints NONE = new EndpointHints(List.of(), List.of());

  public EndpointHints {
    forZones = List.copyOf(forZones);
    forNodes = List.copyOf(forNodes);
  }

  /** These hints, or {@link #NONE} when both lists are empty. */
  public static EndpointHints of(List<String> forZones, List<String> forNodes) {
    return forZones.isEmpty() && forNodes.isEmpty() ? NONE : new EndpointHints(forZones, forNodes);
  }

  /**
   * Written out, with the generated one's meaning: compared with every hinted endpoint's
   * translation, and C1 (the image's compiler) calls a generated equals through method handles
   * (RecordEqualityBenchmark). Hint-less endpoints share {@link #NONE}, so this usually ends at ==.
   */
  @Override
  public boolean equals(Object o) {
    return this == o
        || o instanceof EndpointHints other
            && forZones.equals(other.forZones)
            && forNodes.equals(other.forNodes);
  }

  @Override
  public int hashCode() {
    return 31 * forZones.hashCode() + forNodes.hashCode();
  }

  public boolean isEmpty() {
    return forZones.isEmpty() && forNodes.isEmpty();
  }

  public boolean hasZone(String zone) {
    return zone != null && forZones.contains(zone);
  }

  public boolean hasNode(String node) {
    return node != null && forNodes.contains(node);
  }
}
