package dev.routesync.observe;

import dev.routesync.table.TableView;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;
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
  // Tagged counters by name and tag values: registering looks the meter up in the registry, which
  // is too slow for a call per watch event.
  private final Map<List<String>, Counter> counters = new ConcurrentHashMap<>();
  private final DistributionSummary batchSize;
  private final Timer debounceWait;
  private final Timer flush;
  private final Timer publishLatency;
  private final Timer networkProgramming;
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
    this.flush =
        Timer.builder("routesync.flush.duration")
            .description("Time to recompute a batch and publish the table")
            .serviceLevelObjectives(
                millis(1), millis(5), millis(10), millis(50), millis(100), millis(500))
            .register(registry);
    this.publishLatency =
        Timer.builder("routesync.publish.latency")
            .description("From a watch event's arrival to the table version that includes it")
            .serviceLevelObjectives(
                millis(1),
                millis(5),
                millis(10),
                millis(25),
                millis(50),
                millis(100),
                millis(250),
                millis(500),
                millis(1000),
                millis(5000))
            .register(registry);
    this.networkProgramming =
        Timer.builder("routesync.network.programming.duration")
            .description(
                "From the endpoints.kubernetes.io/last-change-trigger-time annotation to the table"
                    + " version that includes the change (kube-proxy's buckets)")
            .serviceLevelObjectives(kubeProxyNetworkProgrammingBuckets())
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
    counter(
            "routesync.events",
            "Watch events received, by resource kind and event type",
            "kind",
            kind,
            "type",
            type)
        .increment();
  }

  public void batch(String cause, int size, long waitNanos) {
    counter(
            "routesync.batches",
            "Batches flushed, by what triggered the flush",
            "cause",
            cause.toLowerCase(Locale.ROOT))
        .increment();
    batchSize.record(size);
    debounceWait.record(waitNanos, TimeUnit.NANOSECONDS);
  }

  public void flushed(long nanos) {
    flush.record(nanos, TimeUnit.NANOSECONDS);
  }

  public void publishLatency(long nanos) {
    publishLatency.record(Math.max(0, nanos), TimeUnit.NANOSECONDS);
  }

  /** Negative durations (clock skew between the controller and this node) count as zero. */
  public void networkProgramming(Duration sinceTrigger) {
    networkProgramming.record(sinceTrigger.isNegative() ? Duration.ZERO : sinceTrigger);
  }

  // kube-proxy's network_programming_duration_seconds layout: 0.25 s steps to 1 s, 1 s steps to
  // 59 s, 5 s steps to 115 s, 30 s steps to 300 s.
  private static Duration[] kubeProxyNetworkProgrammingBuckets() {
    java.util.List<Duration> buckets = new java.util.ArrayList<>();
    buckets.add(Duration.ofMillis(250));
    buckets.add(Duration.ofMillis(500));
    for (int s = 1; s <= 59; s++) {
      buckets.add(Duration.ofSeconds(s));
    }
    for (int s = 60; s <= 115; s += 5) {
      buckets.add(Duration.ofSeconds(s));
    }
    for (int s = 120; s <= 300; s += 30) {
      buckets.add(Duration.ofSeconds(s));
    }
    return buckets.toArray(Duration[]::new);
  }

  public void relist(String reason) {
    counter(
            "routesync.relists",
            "Full relists of the watched resources, by reason",
            "reason",
            reason)
        .increment();
  }

  public void skipped(String reason) {
    counter(
            "routesync.objects.skipped",
            "Malformed objects or parts skipped during translation, by reason",
            "reason",
            reason)
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
    counter(
            "routesync.watch.lagged",
            "Watch messages that caught a slow subscriber up, by how",
            "how",
            how)
        .increment();
  }

  /** A finished gRPC call, by method and status code name. */
  public void grpcRequest(String method, String status) {
    counter(
            "routesync.grpc.requests",
            "gRPC calls by method and final status",
            "method",
            method,
            "status",
            status)
        .increment();
  }

  /** Registers the gauge of connections open on {@code listener} (a fixed name). */
  public void bindConnections(String listener, IntSupplier open) {
    Gauge.builder("routesync.connections.open", open, IntSupplier::getAsInt)
        .description("Connections open, by listener")
        .tag("listener", listener)
        .strongReference(true)
        .register(registry);
  }

  /** A connection refused at accept because {@code listener} was at its cap. */
  public void connectionRejected(String listener) {
    counter(
            "routesync.connections.rejected",
            "Connections closed at accept because the listener was at its cap",
            "listener",
            listener)
        .increment();
  }

  /** A connection closed by the agent: {@code header_timeout}, {@code idle} or {@code drain}. */
  public void connectionClosed(String listener, String reason) {
    counter(
            "routesync.connections.closed",
            "Connections the agent closed, by listener and reason",
            "listener",
            listener,
            "reason",
            reason)
        .increment();
  }

  public void apiConnected(boolean connected) {
    apiConnected.set(connected ? 1 : 0);
  }

  private Counter counter(String name, String description, String... tags) {
    List<String> key = new ArrayList<>(tags.length + 1);
    key.add(name);
    key.addAll(Arrays.asList(tags));
    return counters.computeIfAbsent(
        key, k -> Counter.builder(name).description(description).tags(tags).register(registry));
  }

  private static Duration millis(long millis) {
    return Duration.ofMillis(millis);
  }
}
