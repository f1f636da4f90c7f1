package dev.routesync.observe;

import dev.routesync.kube.watch.RelistReason;
import dev.routesync.kube.watch.WatchEvent;
import dev.routesync.kube.watch.WatchObserver;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * One watched kind's meters: its events by type; the relists and the connection gauges, which carry
 * no kind label, are shared by every kind (the registry hands each kind the same relist counters).
 */
final class WatchMetrics implements WatchObserver {

  private final MeterRegistry registry;
  private final Map<WatchEvent.Type, Counter> events;
  private final Map<RelistReason, Counter> relists;
  private final AtomicInteger apiConnected;

  /**
   * @param kind the {@code kind} label: a Kubernetes kind the agent chose, never a client's value
   * @param apiConnected the value behind the one {@code routesync.api.connected} gauge
   */
  WatchMetrics(MeterRegistry registry, String kind, AtomicInteger apiConnected) {
    this.registry = registry;
    this.apiConnected = apiConnected;
    this.events =
        Meters.perConstant(
            registry,
            "routesync.events",
            "Watch events received, by resource kind and event type",
            WatchEvent.Type.class,
            "type",
            WatchEvent.Type::label,
            "kind",
            kind);
    this.relists =
        Meters.perConstant(
            registry,
            "routesync.relists",
            "Full relists of the watched resources, by reason",
            RelistReason.class,
            "reason",
            RelistReason::label);
  }

  @Override
  public void event(WatchEvent.Type type) {
    events.get(type).increment();
  }

  @Override
  public void relist(RelistReason reason) {
    relists.get(reason).increment();
  }

  @Override
  public void connected(boolean connected) {
    apiConnected.set(connected ? 1 : 0);
  }

  /**
   * The gauge of how long the watch has been down: 0 while connected, so an alert can fire on an
   * agent serving a stale table for too long.
   */
  @Override
  public void bindDisconnected(LongSupplier disconnectedNanos) {
    Gauge.builder("routesync.api.disconnected", disconnectedNanos, s -> s.getAsLong() / 1e9)
        .description("Seconds since the watch on the API server went down; 0 while connected")
        .baseUnit("seconds")
        // Micrometer holds gauge state weakly; this supplier is referenced nowhere else.
        .strongReference(true)
        .register(registry);
  }
}
