package dev.routesync.observe;

import dev.routesync.kube.SkipObserver;
import dev.routesync.kube.watch.WatchObserver;
import dev.routesync.sync.SyncObserver;
import dev.routesync.table.TableView;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

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
  private final SkipMetrics skips;
  private final SyncMetrics sync;
  private final AtomicInteger apiConnected = new AtomicInteger();
  private final AtomicInteger watchSubscribers = new AtomicInteger();
  private final Counter watchMessages;
  private final Counter watchServicesSent;

  public Metrics(MeterRegistry registry) {
    this.registry = registry;
    this.skips = new SkipMetrics(registry);
    this.sync = new SyncMetrics(registry);
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

  /**
   * What a watch of {@code kind} reports: its events, relists and connection. Call once per watched
   * kind; the relist and connection meters are the same for every kind.
   */
  public WatchObserver watch(String kind) {
    return new WatchMetrics(registry, kind, apiConnected);
  }

  /** What translation skipped, counted once per object version. */
  public SkipObserver skips() {
    return skips;
  }

  /** What the sync stage reports: batches, flush time, latencies. */
  public SyncObserver sync() {
    return sync;
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

  private Counter counter(String name, String description, String... tags) {
    List<String> key = new ArrayList<>(tags.length + 1);
    key.add(name);
    key.addAll(Arrays.asList(tags));
    return counters.computeIfAbsent(
        key, k -> Counter.builder(name).description(description).tags(tags).register(registry));
  }
}
