package dev.routesync.observe;

import static dev.routesync.observe.Meters.millis;

import dev.routesync.sync.Batch;
import dev.routesync.sync.SyncObserver;
import dev.routesync.table.ServiceKey;
import dev.routesync.table.TopologyDecision;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** The sync stage's meters: batches, their sizes and waits, flush time, latencies. */
final class SyncMetrics implements SyncObserver {

  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(SyncMetrics.class);

  private final Map<Batch.Cause, Counter> batches;
  private final DistributionSummary batchSize;
  private final Timer debounceWait;
  private final Timer flush;
  private final Timer publishLatency;
  private final Timer networkProgramming;
  private final Map<TopologyDecision.Fallback, Counter> fallbacks;
  // The reasons already logged at INFO: each once per agent, later ones at DEBUG.
  private final java.util.Set<TopologyDecision.Fallback> logged =
      java.util.EnumSet.noneOf(TopologyDecision.Fallback.class);

  SyncMetrics(MeterRegistry registry) {
    this.batches =
        Meters.perConstant(
            registry,
            "routesync.batches",
            "Batches flushed, by what triggered the flush",
            Batch.Cause.class,
            "cause",
            Batch.Cause::label);
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
    this.fallbacks =
        Meters.perConstant(
            registry,
            "routesync.topology.fallbacks",
            "Services whose topology hints this node stopped following, by reason (counted when"
                + " a Service's decision changes to it, not per flush)",
            TopologyDecision.Fallback.class,
            "reason",
            TopologyDecision.Fallback::label);
  }

  @Override
  public void topologyFallback(ServiceKey key, TopologyDecision decision) {
    fallbacks.get(decision.fallback()).increment();
    boolean first;
    synchronized (logged) {
      first = logged.add(decision.fallback());
    }
    if (first) {
      LOG.info(
          "topology hints of {} are not followed on this node: {} (as kube-proxy: every endpoint"
              + " is used; further Services falling back for this reason are logged at DEBUG and"
              + " counted in routesync_topology_fallbacks_total)",
          key,
          decision.fallback().reason());
    } else {
      LOG.debug(
          "topology hints of {} are not followed on this node: {}",
          key,
          decision.fallback().reason());
    }
  }

  @Override
  public void batch(Batch.Cause cause, int services, long waitNanos) {
    batches.get(cause).increment();
    batchSize.record(services);
    debounceWait.record(waitNanos, TimeUnit.NANOSECONDS);
  }

  @Override
  public void flushed(long nanos) {
    flush.record(nanos, TimeUnit.NANOSECONDS);
  }

  @Override
  public void publishLatency(long nanos) {
    publishLatency.record(Math.max(0, nanos), TimeUnit.NANOSECONDS);
  }

  @Override
  public void networkProgramming(Duration sinceTrigger) {
    networkProgramming.record(sinceTrigger.isNegative() ? Duration.ZERO : sinceTrigger);
  }

  // kube-proxy's network_programming_duration_seconds layout: 0.25 s steps to 1 s, 1 s steps to
  // 59 s, 5 s steps to 115 s, 30 s steps to 300 s.
  private static Duration[] kubeProxyNetworkProgrammingBuckets() {
    List<Duration> buckets = new ArrayList<>();
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
}
