package dev.routesync.sync;

import dev.routesync.observe.Metrics;
import dev.routesync.table.Endpoint;
import dev.routesync.table.ServiceKey;
import dev.routesync.table.TableWriter;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Recomputes each service of a batch once, from the current watch caches, and publishes the result.
 * Idempotent: recomputing a service whose endpoints did not change produces no new version, so
 * replays, duplicate deliveries and relists cause no sidecar churn.
 *
 * <p>Threading: runs on the coalescer's context, the table's single writer.
 */
public final class Reconciler implements Coalescer.BatchSink {

  private final EndpointLookup lookup;
  private final TableWriter writer;
  private final Metrics metrics;

  public Reconciler(EndpointLookup lookup, TableWriter writer, Metrics metrics) {
    this.lookup = lookup;
    this.writer = writer;
    this.metrics = metrics;
  }

  @Override
  public void flush(Batch batch) {
    long start = System.nanoTime();
    Map<ServiceKey, List<Endpoint>> upserts = new HashMap<>();
    // A set: the table checks each upsert against the removals.
    Set<ServiceKey> removals = new HashSet<>();
    for (ServiceKey key : batch.keys()) {
      Optional<List<Endpoint>> endpoints = lookup.endpointsOf(key);
      if (endpoints.isPresent()) {
        upserts.put(key, endpoints.get());
      } else {
        removals.add(key);
      }
    }
    writer.publish(upserts, removals);
    metrics.batch(batch.cause().name(), batch.keys().size(), batch.waitNanos());
    metrics.reconciled(System.nanoTime() - start);
  }
}
