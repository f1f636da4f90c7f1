package dev.routesync.sync;

import dev.routesync.table.Endpoint;
import dev.routesync.table.RoutingTable;
import dev.routesync.table.ServiceEndpoints;
import dev.routesync.table.ServiceKey;
import dev.routesync.table.ServiceState;
import dev.routesync.table.TableWriter;
import dev.routesync.table.TopologyDecision;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * Recomputes each service of a batch once, from the current watch caches, and publishes the result.
 * Idempotent: recomputing a service whose endpoints and declared ports did not change produces no
 * new version, so replays, duplicate deliveries and relists cause no sidecar churn.
 *
 * <p>Threading: runs on the coalescer's context, the table's single writer.
 */
public final class Reconciler implements Coalescer.BatchSink {

  private final EndpointLookup lookup;
  private final TableWriter writer;
  private final SyncObserver observer;
  private final LongSupplier nanoTime;
  private final Clock wallClock;
  private final Instant startedAt;

  public Reconciler(EndpointLookup lookup, TableWriter writer, SyncObserver observer) {
    this(lookup, writer, observer, System::nanoTime, Clock.systemUTC());
  }

  /**
   * Build it when the agent starts: the wall clock's time now is the agent's start, before which no
   * trigger time is measured.
   *
   * @param nanoTime the coalescer's clock (arrival times in batches are on its scale)
   * @param wallClock for the trigger-time annotation, which is wall-clock time
   */
  public Reconciler(
      EndpointLookup lookup,
      TableWriter writer,
      SyncObserver observer,
      LongSupplier nanoTime,
      Clock wallClock) {
    this.lookup = lookup;
    this.writer = writer;
    this.observer = observer;
    this.nanoTime = nanoTime;
    this.wallClock = wallClock;
    this.startedAt = wallClock.instant();
  }

  @Override
  public void flush(Batch batch) {
    long start = System.nanoTime();
    Map<ServiceKey, ServiceState> upserts = new HashMap<>();
    // A set: the table checks each upsert against the removals.
    Set<ServiceKey> removals = new HashSet<>();
    // Found with the state, in the same lookup, for the services that turn out to have changed.
    Map<ServiceKey, Instant> triggers = new HashMap<>();
    for (ServiceKey key : batch.keys()) {
      Optional<EndpointLookup.Found> found = lookup.find(key);
      if (found.isPresent()) {
        ServiceKey held = found.get().key() != null ? found.get().key() : key;
        upserts.put(held, found.get().state());
        if (found.get().triggerTime() != null) {
          triggers.put(key, found.get().triggerTime());
        }
      } else {
        removals.add(key);
      }
    }
    RoutingTable before = writer.current();
    RoutingTable after = writer.publish(upserts, removals);
    observer.batch(batch.cause(), batch.keys().size(), batch.waitNanos());
    observer.flushed(System.nanoTime() - start);
    if (after != before) {
      recordLatencies(batch, before, after, triggers);
    }
  }

  // Only for services whose published state changed: an idempotent recompute publishes nothing,
  // so there is no latency to speak of.
  private void recordLatencies(
      Batch batch, RoutingTable before, RoutingTable after, Map<ServiceKey, Instant> triggers) {
    long now = nanoTime.getAsLong();
    Instant wallNow = wallClock.instant();
    for (ServiceKey key : after.changedSince(before.version()).orElse(Set.of())) {
      reportFallback(before, after, key);
      Long arrived = batch.changedAt().get(key);
      if (arrived != null) {
        observer.publishLatency(now - arrived);
      }
      // Network programming is about endpoints: a Service whose declared ports alone changed
      // still carries its slices' old trigger time, and would measure that time's age instead.
      if (endpointsOf(before, key).equals(endpointsOf(after, key))) {
        continue;
      }
      // As kube-proxy does: a change made before the agent started (every object of the initial
      // list, however old) measures the agent's uptime, not how fast it programs a change.
      Instant trigger = triggers.get(key);
      if (trigger != null && trigger.isAfter(startedAt)) {
        observer.networkProgramming(Duration.between(trigger, wallNow));
        Optional<ServiceEndpoints> published = after.get(key);
        if (published.isPresent()) {
          observer.programmed(key, published.get().version(), trigger);
        }
      }
    }
  }

  private void reportFallback(RoutingTable before, RoutingTable after, ServiceKey key) {
    Optional<ServiceEndpoints> now = after.get(key);
    TopologyDecision.Fallback fallback = now.map(entry -> entry.topology().fallback()).orElse(null);
    if (fallback != null
        && before.get(key).map(entry -> entry.topology().fallback()).orElse(null) != fallback) {
      observer.topologyFallback(key, now.get().topology());
    }
  }

  private static Optional<List<Endpoint>> endpointsOf(RoutingTable table, ServiceKey key) {
    return table.get(key).map(ServiceEndpoints::endpoints);
  }
}
