package dev.routesync.kube.translate;

import dev.routesync.table.Endpoint;
import java.util.List;

/**
 * The routable endpoints of one service, and what had to be skipped to compute them.
 *
 * @param endpoints sorted by IP, deduplicated
 * @param skips malformed parts left out
 */
public record Translation(List<Endpoint> endpoints, List<Skip> skips) {

  public Translation {
    endpoints = List.copyOf(endpoints);
    skips = List.copyOf(skips);
  }
}
