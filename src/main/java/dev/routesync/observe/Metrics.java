package dev.routesync.observe;

import dev.routesync.table.TableView;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * Every routesync meter, named once. Prometheus names follow from Micrometer's: {@code
 * routesync.events} becomes {@code routesync_events_total}, timers become {@code _seconds}
 * histograms.
 *
 * <p>Threading: Micrometer meters are thread-safe; call from any thread.
 */
public final class Metrics {

  private final MeterRegistry registry;
  private final DistributionSummary batchSize;
  private final Timer debounceWait;
  private final Timer reconcile;
  private final AtomicInteger apiConnected = new AtomicInteger();
  private final AtomicInteger watchSubscribers = new AtomicInteger();
  private final Counter watchMessages;
  private final Counter watchServicesSent;

  public Metrics(MeterRegistry registry) {
    this.registry = registry;
    this.batchSize =
        DistributionSummary.builder("routesync.batch.size")
            .description("Services recomputed per flushed batch")
            .serviceLevelObjectives(1, 10, 100, 1000, 5000, 10000)
            .register(registry);
    this.debounceWait =
        Timer.builder("routesync.debounce.wait")
            .description("How long the oldest change of a batch waited before its flush")
            .serviceLevelObjectives(
                millis(1), millis(10), millis(50), millis(100), millis(500), millis(1000))
            .register(registry);
    this.reconcile =
        Timer.builder("routesync.reconcile")
            .description("Time to recompute a batch and publish the table")
            .serviceLevelObjectives(
                millis(1), millis(5), millis(10), millis(50), millis(100), millis(500))
            .register(registry);
    Gauge.builder("routesync.watch.subscribers", watchSubscribers, AtomicInteger::get)
        .description("Open gRPC Watch streams")
        .register(registry);
    this.watchMessages =
        Counter.builder("routesync.watch.messages")
            .description("WatchEvent messages sent to subscribers")
            .register(registry);
    this.watchServicesSent =
        Counter.builder("routesync.watch.services.sent")
            .description("Services (upserted or removed) carried by WatchEvent messages")
            .register(registry);
    Gauge.builder("routesync.api.connected", apiConnected, AtomicInteger::get)
        .description("1 while the watch on the Kubernetes API server is established")
        .register(registry);
  }

  public MeterRegistry registry() {
    return registry;
  }

  /** Registers the gauges that read the published table. */
  public void bindTable(TableView table) {
    Gauge.builder("routesync.table.version", table, t -> t.current().version())
        .description("Version of the published routing table")
        .register(registry);
    Gauge.builder("routesync.services", table, t -> t.current().serviceCount())
        .description("Services in the published routing table")
        .register(registry);
    Gauge.builder("routesync.endpoints", table, t -> t.current().endpointCount())
        .description("Endpoints in the published routing table")
        .register(registry);
  }

  /**
   * Registers the gauge of how long the watch has been down: 0 while connected, so an alert can
   * fire on an agent serving a stale table for too long.
   */
  public void bindDisconnected(LongSupplier disconnectedNanos) {
    Gauge.builder("routesync.api.disconnected", disconnectedNanos, s -> s.getAsLong() / 1e9)
        .description("Seconds since the watch on the API server went down; 0 while connected")
        .baseUnit("seconds")
        // Micrometer holds gauge state weakly; this supplier is referenced nowhere else.
        .strongReference(true)
        .register(registry);
  }

  /** A watch event, by resource kind and event type (added, updated, deleted). */
  public void watchEvent(String kind, String type) {
    Counter.builder("routesync.events")
        .description("Watch events received, by resource kind and event type")
        .tags("kind", kind, "type", type)
        .register(registry)
        .increment();
  }

  public void batch(String cause, int size, long waitNanos) {
    Counter.builder("routesync.batches")
        .description("Batches flushed, by what triggered the flush")
        .tag("cause", cause.toLowerCase(Locale.ROOT))
        .register(registry)
        .increment();
    batchSize.record(size);
    debounceWait.record(waitNanos, TimeUnit.NANOSECONDS);
  }

  public void reconciled(long nanos) {
    reconcile.record(nanos, TimeUnit.NANOSECONDS);
  }

  public void relist(String reason) {
    Counter.builder("routesync.relists")
        .description("Full relists of the watched resources, by reason")
        .tag("reason", reason)
        .register(registry)
        .increment();
  }

  public void skipped(String reason) {
    Counter.builder("routesync.objects.skipped")
        .description("Malformed objects or parts skipped during translation, by reason")
        .tag("reason", reason)
        .register(registry)
        .increment();
  }

  /** A Watch stream opened ({@code +1}) or ended ({@code -1}). */
  public void watchSubscribers(int delta) {
    watchSubscribers.addAndGet(delta);
  }

  public void watchMessage(int services) {
    watchMessages.increment();
    watchServicesSent.increment(services);
  }

  /**
   * A subscriber fell behind: {@code coalesced} when one message covered several table versions,
   * {@code reset} when it fell out of the delta log and got a full snapshot.
   */
  public void watchLagged(String how) {
    Counter.builder("routesync.watch.lagged")
        .description("Watch messages that caught a slow subscriber up, by how")
        .tag("how", how)
        .register(registry)
        .increment();
  }

  /** A finished gRPC call, by method and status code name. */
  public void grpcRequest(String method, String status) {
    Counter.builder("routesync.grpc.requests")
        .description("gRPC calls by method and final status")
        .tags("method", method, "status", status)
        .register(registry)
        .increment();
  }

  public void apiConnected(boolean connected) {
    apiConnected.set(connected ? 1 : 0);
  }

  private static Duration millis(long millis) {
    return Duration.ofMillis(millis);
  }
}
