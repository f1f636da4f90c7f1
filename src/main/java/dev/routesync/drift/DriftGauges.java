package dev.routesync.drift;

import dev.routesync.drift.DriftObserver.PortSeries;
import dev.routesync.rules.MissingReason;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * Which gauge series exist, and their counts: a drift series appears with its first drifting pod,
 * goes to 0 (and stays) when the drift clears, and is dropped with every other series of its
 * Service when the Service has no pods on this node any more. So an alert sees a drift end as a 0,
 * and the series count follows this node's pods, not the cluster's Services.
 *
 * <p>Threading: the sync context.
 */
final class DriftGauges {

  private final DriftObserver observer;
  // Service -> port -> reason -> drifting pods (0 once cleared)
  private final Map<ServiceRef, Map<String, EnumMap<MissingReason, Integer>>> drift =
      new HashMap<>();
  // Service -> port -> ready endpoints with that port
  private final Map<ServiceRef, Map<String, Integer>> ready = new HashMap<>();

  DriftGauges(DriftObserver observer) {
    this.observer = observer;
  }

  void add(ServiceRef service, String port, MissingReason reason, int delta) {
    EnumMap<MissingReason, Integer> reasons =
        drift
            .computeIfAbsent(service, s -> new HashMap<>())
            .computeIfAbsent(port, p -> new EnumMap<>(MissingReason.class));
    int pods = Math.max(0, reasons.getOrDefault(reason, 0) + delta);
    reasons.put(reason, pods);
    observer.driftPods(series(service, port), reason, pods);
  }

  /**
   * The Service's ready endpoints per port, for the ports it has now; series of ports it lost are
   * dropped.
   */
  void readyEndpoints(ServiceRef service, Map<String, Integer> endpointsByPort) {
    Map<String, Integer> before = ready.computeIfAbsent(service, s -> new HashMap<>());
    for (String port : Set.copyOf(before.keySet())) {
      if (!endpointsByPort.containsKey(port)) {
        before.remove(port);
        observer.removeReadyEndpoints(series(service, port));
        dropDrift(service, port);
      }
    }
    endpointsByPort.forEach(
        (port, endpoints) -> {
          Integer previous = before.put(port, endpoints);
          if (previous == null || previous.intValue() != endpoints) {
            observer.readyEndpoints(series(service, port), endpoints);
          }
        });
  }

  /** The Service has no pods on this node: every series of it goes. */
  void drop(ServiceRef service) {
    Map<String, Integer> ports = ready.remove(service);
    if (ports != null) {
      ports.keySet().forEach(port -> observer.removeReadyEndpoints(series(service, port)));
    }
    Map<String, EnumMap<MissingReason, Integer>> drifting = drift.get(service);
    if (drifting != null) {
      for (String port : Set.copyOf(drifting.keySet())) {
        dropDrift(service, port);
      }
    }
  }

  private void dropDrift(ServiceRef service, String port) {
    Map<String, EnumMap<MissingReason, Integer>> ports = drift.get(service);
    EnumMap<MissingReason, Integer> reasons = ports == null ? null : ports.remove(port);
    if (reasons != null) {
      reasons.keySet().forEach(reason -> observer.removeDriftPods(series(service, port), reason));
    }
    if (ports != null && ports.isEmpty()) {
      drift.remove(service);
    }
  }

  private static PortSeries series(ServiceRef service, String port) {
    return new PortSeries(service.namespace(), service.name(), port);
  }
}
