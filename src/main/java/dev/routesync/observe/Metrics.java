package dev.routesync.observe;

import dev.routesync.drift.DriftObserver;
import dev.routesync.kube.SkipObserver;
import dev.routesync.kube.events.EventObserver;
import dev.routesync.kube.watch.WatchObserver;
import dev.routesync.serve.ServeObserver;
import dev.routesync.sidecars.Sidecars;
import dev.routesync.state.StateObserver;
import dev.routesync.sync.SyncObserver;
import dev.routesync.table.FreshnessView;
import dev.routesync.table.TableView;
import dev.routesync.xds.XdsObserver;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.function.BooleanSupplier;

/**
 * Every routesync meter, named once, behind the observer interface of the stage that records it:
 * {@link #watch} for kube/watch, {@link #skips} for kube, {@link #kubernetesEvents} for
 * kube/events, {@link #sync} for sync, {@link #serve} for serve, {@link #xds} for xds. The stages
 * see only their interfaces and enums; this package maps them to Micrometer, so the agent is the
 * one place that wires the two. Counters labelled by an enum are one per constant, registered up
 * front, so recording is an array index, not a registry lookup.
 *
 * <p>Prometheus names follow from Micrometer's: {@code routesync.events} becomes {@code
 * routesync_events_total}, timers become {@code _seconds} histograms. To add a meter, add a method
 * to the stage's observer interface (enums for its labels, never a client's string) and implement
 * it in that stage's adapter here.
 *
 * <p>Threading: Micrometer meters are thread-safe; call from any thread.
 */
public final class Metrics {

  private final MeterRegistry registry;
  private final ApiConnection apiConnection = new ApiConnection();
  private final SkipMetrics skips;
  private final SyncMetrics sync;
  private final ServeMetrics serve;
  private final KubernetesEventMetrics kubernetesEvents;
  private final StateMetrics state;
  private final XdsMetrics xds;

  public Metrics(MeterRegistry registry) {
    this.registry = registry;
    this.skips = new SkipMetrics(registry);
    this.sync = new SyncMetrics(registry);
    this.serve = new ServeMetrics(registry);
    this.kubernetesEvents = new KubernetesEventMetrics(registry);
    this.state = new StateMetrics(registry);
    this.xds = new XdsMetrics(registry);
    Gauge.builder("routesync.api.connected", apiConnection, ApiConnection::connected)
        .description("1 while the watch on the Kubernetes API server is established")
        .register(registry);
    // How long the watch has been down: 0 while connected, so an alert can fire on an agent
    // serving a stale table for too long. Over every watch, the longest outage.
    Gauge.builder("routesync.api.disconnected", apiConnection, c -> c.disconnectedNanos() / 1e9)
        .description("Seconds since the watch on the API server went down; 0 while connected")
        .baseUnit("seconds")
        .register(registry);
  }

  public MeterRegistry registry() {
    return registry;
  }

  /**
   * What a watch of {@code kind} reports: its events, relists and connection. Call once per watched
   * kind; the relist and connection meters are the same for every kind (connected while every watch
   * is, disconnected as long as the longest outage).
   */
  public WatchObserver watch(String kind) {
    return new WatchMetrics(registry, kind, apiConnection);
  }

  /** What translation skipped, counted once per object version. */
  public SkipObserver skips() {
    return skips;
  }

  /** What the sync stage reports: batches, flush time, latencies. */
  public SyncObserver sync() {
    return sync;
  }

  /** What serving reports: gRPC calls and Watch streams. */
  public ServeObserver serve() {
    return serve;
  }

  /** What the xDS server reports: ADS streams, subscriptions, responses, NACKs, push latency. */
  public XdsObserver xds() {
    return xds;
  }

  /**
   * The drift detector's gauges ({@code routesync_drift_pods}, {@code
   * routesync_service_ready_endpoints}); series exist only for Services with pods on this node.
   */
  public DriftObserver drift() {
    return new DriftMetrics(registry);
  }

  /** What the Kubernetes Event recorder reports: Events created, updated, dropped, failed. */
  public EventObserver kubernetesEvents() {
    return kubernetesEvents;
  }

  /** What the state file reports: load failures by reason, writes by result, Services restored. */
  public StateObserver state() {
    return state;
  }

  /**
   * Registers the sidecars' sync meters: the streams behind by more than 5 s, and the propagation
   * latency their acknowledgements measure ({@link ClientMetrics}).
   */
  public void bindClients(Sidecars sidecars) {
    new ClientMetrics(registry, sidecars);
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
   * Registers the gauges that say how fresh the served table is: {@code routesync_table_stale}
   * (0/1) and {@code routesync_last_sync_timestamp_seconds} (unix seconds; NaN until the API server
   * has been heard from, so the series exists from the start, like every other, and no alert reads
   * a made-up time).
   */
  public void bindFreshness(FreshnessView freshness) {
    Gauge.builder("routesync.table.stale", freshness, f -> f.stale() ? 1 : 0)
        .description(
            "1 while the served table may be out of date (restored, or disconnected"
                + " longer than --relist-after); it is still served")
        .register(registry);
    Gauge.builder(
            "routesync.last.sync.timestamp",
            freshness,
            f -> f.syncedAt().map(at -> at.toEpochMilli() / 1e3).orElse(Double.NaN))
        .description(
            "When the API server was last heard from (a list or a watch event); NaN"
                + " before the first time")
        .baseUnit("seconds")
        .register(registry);
  }

  /**
   * Registers the heap budget's meters: {@code routesync_heap_live_bytes} (the old generation after
   * its last collection), {@code routesync_heap_budget_bytes} and {@code routesync_watches_parked}
   * (1 while the watches are held back for it). The returned counter, {@code
   * routesync_heap_budget_spent_total}, counts the times the budget was found spent.
   */
  public Counter bindHeapBudget(HeapBudget budget, BooleanSupplier parked) {
    Gauge.builder("routesync.heap.live", budget, HeapBudget::liveBytes)
        .strongReference(true)
        .description("Bytes of the heap's old generation live after its last collection")
        .baseUnit("bytes")
        .register(registry);
    Gauge.builder("routesync.heap.budget", budget, HeapBudget::budgetBytes)
        .strongReference(true)
        .description("Bytes of the old generation that may stay live before the watches park")
        .baseUnit("bytes")
        .register(registry);
    // Strong references: a gauge holds its object weakly, and the supplier is a lambda no one
    // else keeps (a collection would turn the gauge to NaN).
    Gauge.builder("routesync.watches.parked", parked, p -> p.getAsBoolean() ? 1 : 0)
        .strongReference(true)
        .description(
            "1 while the watches are held back because the heap budget is spent; the table"
                + " is served as it stands, stale")
        .register(registry);
    return Counter.builder("routesync.heap.budget.spent")
        .description("Times a collection left the old generation above the heap budget")
        .register(registry);
  }
}
