package dev.routesync.observe;

import dev.routesync.kube.watch.RelistReason;
import dev.routesync.kube.watch.RestartReason;
import dev.routesync.kube.watch.WatchEvent;
import dev.routesync.kube.watch.WatchObserver;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * One watched kind's meters: its events by type, bookmarks and restarts; the relists and the
 * connection gauges, which carry no kind label, are shared by every kind (the registry hands each
 * kind the same relist counters).
 */
final class WatchMetrics implements WatchObserver {

  private final MeterRegistry registry;
  private final Map<WatchEvent.Type, Counter> events;
  private final Map<RelistReason, Counter> relists;
  private final Map<RestartReason, Counter> restarts;
  private final Counter bookmarks;
  private final ApiConnection apiConnection;
  private final AtomicInteger connected;

  /**
   * @param kind the {@code kind} label: a Kubernetes kind the agent chose, never a client's value
   * @param apiConnection what the one {@code routesync.api.connected} and {@code
   *     routesync.api.disconnected} gauges read, over every watch
   */
  WatchMetrics(MeterRegistry registry, String kind, ApiConnection apiConnection) {
    this.registry = registry;
    this.apiConnection = apiConnection;
    this.connected = apiConnection.addWatch();
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
    this.restarts =
        Meters.perConstant(
            registry,
            "routesync.watch.restarts",
            "Watches given up on while they looked connected, by resource kind and reason",
            RestartReason.class,
            "reason",
            RestartReason::label,
            "kind",
            kind);
    this.bookmarks =
        Counter.builder("routesync.watch.bookmarks")
            .description(
                "Watch bookmarks seen (the resourceVersion moved without an event), by resource"
                    + " kind; sampled, so bookmarks close together count once")
            .tag("kind", kind)
            .register(registry);
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
  public void bookmark() {
    bookmarks.increment();
  }

  @Override
  public void restarted(RestartReason reason) {
    restarts.get(reason).increment();
  }

  @Override
  public void connected(boolean connected) {
    this.connected.set(connected ? 1 : 0);
  }

  /** Adds this watch's outage to the {@code routesync.api.disconnected} gauge (see Metrics). */
  @Override
  public void bindDisconnected(LongSupplier disconnectedNanos) {
    apiConnection.addDisconnected(disconnectedNanos);
  }
}
