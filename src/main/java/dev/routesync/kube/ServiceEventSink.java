package dev.routesync.kube;

import dev.routesync.kube.translate.Skip;
import dev.routesync.kube.watch.Generation;
import dev.routesync.kube.watch.WatchEvent;
import dev.routesync.kube.watch.WatchSink;
import dev.routesync.sync.Coalescer;
import dev.routesync.table.ServiceKey;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns the EndpointSlice (or Endpoints) watch into work for the coalescer: an event marks its
 * Service dirty (and the Service it left, if its label changed); a new generation swaps into the
 * {@link ServiceCache} and every Service known to either generation is recomputed as one batch, so
 * a relist publishes one version and never an empty flash.
 *
 * <p>Threading: the sync context, like the coalescer.
 */
public final class ServiceEventSink<T extends HasMetadata> implements WatchSink<T> {

  private static final Logger LOG = LoggerFactory.getLogger(ServiceEventSink.class);

  private final WatchedKind<T> kind;
  private final ServiceCache<T> cache;
  private final Coalescer coalescer;
  private final SkipReporter skips;

  public ServiceEventSink(
      WatchedKind<T> kind, ServiceCache<T> cache, Coalescer coalescer, SkipReporter skips) {
    this.kind = kind;
    this.cache = cache;
    this.coalescer = coalescer;
    this.skips = skips;
  }

  @Override
  public void replaced(Generation<T> previous, Generation<T> next) {
    Set<ServiceKey> affected = new TreeSet<>(ServiceIndex.keysOf(next));
    if (previous != null) {
      affected.addAll(ServiceIndex.keysOf(previous));
    }
    cache.swap(next);
    LOG.info("{} synced: {} services", next, affected.size());
    coalescer.flushAsOne(affected);
  }

  @Override
  public void event(WatchEvent<T> event) {
    try {
      Optional<ServiceKey> key = kind.serviceKeyOf(event.object());
      if (key.isPresent()) {
        coalescer.markDirty(key.get(), event.arrivedNanos());
      } else if (event.type() != WatchEvent.Type.DELETED) {
        // Counted per event: each add or update of an object is a new version of it.
        skips.report(
            new Skip(
                kind.unkeyedReason(),
                describe(event.object()),
                Skip.resourceVersionOf(event.object()),
                "no Service to attach it to"));
      }
      if (event.previous() != null) {
        kind.serviceKeyOf(event.previous())
            .filter(k -> !k.equals(key.orElse(null)))
            .ifPresent(coalescer::markDirty);
      }
    } catch (RuntimeException e) {
      LOG.error("dropped a {} {} event", kind.kind(), event.type().label(), e);
    }
  }

  private String describe(T object) {
    var meta = object == null ? null : object.getMetadata();
    return kind.kind() + " " + (meta == null ? "?" : meta.getNamespace() + "/" + meta.getName());
  }
}
