package dev.routesync.drift;

import dev.routesync.rules.ControllerSlices;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * The ready endpoint uids per Service port, each computed at most once per evaluation round: every
 * pod of a Service, and its gauges, need the same set, and the slices do not change within a round.
 *
 * <p>Threading: the sync context; one instance per round, dropped after it.
 */
final class ReadyUids {
  private final SliceStore slices;
  private final Map<ServiceRef, Map<String, Set<String>>> cache = new HashMap<>();

  ReadyUids(SliceStore slices) {
    this.slices = slices;
  }

  Set<String> of(ServiceRef ref, String portName) {
    return cache
        .computeIfAbsent(ref, r -> new HashMap<>())
        .computeIfAbsent(
            portName, name -> ControllerSlices.readyUidsWithPort(slices.of(ref), name));
  }
}
