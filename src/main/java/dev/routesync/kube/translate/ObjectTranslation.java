package dev.routesync.kube.translate;

import dev.routesync.table.Endpoint;
import java.util.List;

/**
 * What one EndpointSlice (or Endpoints object) says, translated once when it arrives: every
 * endpoint it lists, whatever its conditions, deduplicated by IP within the object, and what had to
 * be skipped. A Service's routable endpoints are merged from its objects' translations ({@link
 * ServiceMerge}), so an object is never translated again while it is unchanged.
 *
 * @param endpoints sorted by IP, one per IP, not yet filtered for readiness
 * @param skips malformed parts left out
 */
public record ObjectTranslation(List<Endpoint> endpoints, List<Skip> skips) {

  public ObjectTranslation {
    endpoints = List.copyOf(endpoints);
    skips = List.copyOf(skips);
  }

  /**
   * Written out, with the generated one's meaning: each arriving object's translation is checked
   * against the one held, and under C1 (the image's compiler) the generated equals runs through a
   * chain of method handles (RecordEqualityBenchmark).
   */
  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    return o instanceof ObjectTranslation other
        && endpoints.equals(other.endpoints)
        && skips.equals(other.skips);
  }

  @Override
  public int hashCode() {
    return 31 * endpoints.hashCode() + skips.hashCode();
  }

  /** An object that contributes nothing (and skipped nothing). */
  public static final ObjectTranslation EMPTY = new ObjectTranslation(List.of(), List.of());
}
