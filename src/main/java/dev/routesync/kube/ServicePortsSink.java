package dev.routesync.kube;

import dev.routesync.kube.watch.Generation;
import dev.routesync.kube.watch.WatchEvent;
import dev.routesync.kube.watch.WatchSink;
import dev.routesync.sync.Coalescer;
import dev.routesync.table.ServiceKey;
import io.fabric8.kubernetes.api.model.Service;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns the Services watch into work for the coalescer: a Service event marks that Service dirty,
 * so its entry is recomputed with its declared ports; a new generation swaps into {@link
 * ServicePorts} and every Service of either generation is recomputed as one batch, so a relist
 * publishes at most one version and never flashes. A Service with no slices has no entry, and the
 * recompute of it publishes nothing; neither does one whose ports did not change (the table is
 * idempotent).
 *
 * <p>Threading: the sync context, like the coalescer.
 */
public final class ServicePortsSink implements WatchSink<Service> {

  private static final Logger LOG = LoggerFactory.getLogger(ServicePortsSink.class);

  private final ServicePorts ports;
  private final Coalescer coalescer;

  public ServicePortsSink(ServicePorts ports, Coalescer coalescer) {
    this.ports = ports;
    this.coalescer = coalescer;
  }

  @Override
  public void replaced(Generation<Service> previous, Generation<Service> next) {
    Set<ServiceKey> affected = new TreeSet<>(ServicePorts.keysOf(next));
    if (previous != null) {
      affected.addAll(ServicePorts.keysOf(previous));
    }
    ports.swap(next);
    LOG.info("{} synced: {} services", next, affected.size());
    coalescer.flushAsOne(affected);
  }

  @Override
  public void event(WatchEvent<Service> event) {
    try {
      ServicePorts.keyOf(event.object())
          .ifPresent(key -> coalescer.markDirty(key, event.arrivedNanos()));
    } catch (RuntimeException e) {
      LOG.error("dropped a Service {} event", event.type().label(), e);
    }
  }
}
