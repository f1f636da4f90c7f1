package dev.routesync.kube;

import dev.routesync.sync.EndpointLookup;
import dev.routesync.table.Endpoint;
import dev.routesync.table.ServiceKey;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.List;
import java.util.Optional;

/**
 * The watch cache the reconciler reads: the current {@link Generation}'s objects, translated per
 * Service on demand. Skips found while translating are reported here.
 *
 * <p>Threading: read and swapped on the sync context.
 */
public final class ServiceCache<T extends HasMetadata> implements EndpointLookup {

  private final WatchedKind<T> kind;
  private final SkipReporter skips;
  private volatile Generation<T> current;

  public ServiceCache(WatchedKind<T> kind, SkipReporter skips) {
    this.kind = kind;
    this.skips = skips;
  }

  @Override
  public Optional<List<Endpoint>> endpointsOf(ServiceKey key) {
    Generation<T> generation = current;
    if (generation == null) {
      return Optional.empty();
    }
    List<T> objects = generation.objectsOf(key);
    if (objects.isEmpty()) {
      return Optional.empty();
    }
    Translation translation = kind.translate(objects);
    translation.skips().forEach(skips::report);
    return Optional.of(translation.endpoints());
  }

  Generation<T> current() {
    return current;
  }

  void swap(Generation<T> next) {
    current = next;
  }
}
