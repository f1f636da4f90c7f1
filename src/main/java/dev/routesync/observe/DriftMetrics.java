package dev.routesync.observe;

import dev.routesync.drift.DriftObserver;
import dev.routesync.rules.MissingReason;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The drift detector's gauges. Their label values are Kubernetes names the API server accepted, and
 * the detector keeps only the Services with pods on this node, so the series follow this node's
 * pods, never the cluster's Services or a client's input.
 *
 * <p>Threading: written on the sync context; Micrometer reads the values on a scrape's thread.
 */
final class DriftMetrics implements DriftObserver {

  static final String DRIFT_PODS = "routesync.drift.pods";
  static final String READY_ENDPOINTS = "routesync.service.ready.endpoints";

  private record DriftKey(PortSeries series, MissingReason reason) {}

  /** A registered gauge and the value it reads (held here: Micrometer holds gauges weakly). */
  private record Slot(Gauge gauge, AtomicInteger value) {}

  private final MeterRegistry registry;
  private final Map<DriftKey, Slot> drift = new HashMap<>();
  private final Map<PortSeries, Slot> ready = new HashMap<>();

  DriftMetrics(MeterRegistry registry) {
    this.registry = registry;
  }

  @Override
  public void driftPods(PortSeries series, MissingReason reason, int pods) {
    drift
        .computeIfAbsent(
            new DriftKey(series, reason),
            key ->
                register(
                    DRIFT_PODS,
                    "This node's Ready pods missing from a Service port's ready endpoints, by"
                        + " reason; 0 once cleared",
                    tags(series).and("reason", reason.label())))
        .value()
        .set(pods);
  }

  @Override
  public void removeDriftPods(PortSeries series, MissingReason reason) {
    remove(drift.remove(new DriftKey(series, reason)));
  }

  @Override
  public void readyEndpoints(PortSeries series, int endpoints) {
    ready
        .computeIfAbsent(
            series,
            key ->
                register(
                    READY_ENDPOINTS,
                    "Ready endpoints carrying the port, of each mesh-managed Service that selects a"
                        + " pod on this node",
                    tags(series)))
        .value()
        .set(endpoints);
  }

  @Override
  public void removeReadyEndpoints(PortSeries series) {
    remove(ready.remove(series));
  }

  private static Tags tags(PortSeries series) {
    return Tags.of(
        "namespace", series.namespace(), "service", series.service(), "port", series.port());
  }

  private Slot register(String name, String description, Tags tags) {
    AtomicInteger value = new AtomicInteger();
    Gauge gauge =
        Gauge.builder(name, value, AtomicInteger::get)
            .description(description)
            .tags(tags)
            .strongReference(true)
            .register(registry);
    return new Slot(gauge, value);
  }

  private void remove(Slot slot) {
    if (slot != null) {
      registry.remove(slot.gauge());
    }
  }
}
