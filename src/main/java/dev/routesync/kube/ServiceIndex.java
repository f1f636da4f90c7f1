package dev.routesync.kube;

import dev.routesync.kube.watch.Generation;
import dev.routesync.kube.watch.ResourceSpec;
import dev.routesync.table.ServiceKey;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * EndpointSlices (or Endpoints) by the Service they belong to: the {@link ResourceSpec} of their
 * watch, with an index by {@code namespace/service}, and the reads of a {@link Generation} by
 * Service that the cache and the sink make.
 */
public final class ServiceIndex {

  /** Index of objects by {@code namespace/service}. */
  static final String NAME = "service";

  private ServiceIndex() {}

  /**
   * The watch of {@code kind} in the configured namespaces, filtered by the label selector on the
   * API server and indexed by Service.
   */
  public static <T extends HasMetadata> ResourceSpec<T> spec(
      WatchedKind<T> kind, KubernetesClient client, WatchSettings settings) {
    return new ResourceSpec<>(
        kind.kind(),
        settings.namespaces(),
        namespace -> kind.newInformer(client, namespace, settings.labelSelector()),
        Map.of(
            NAME,
            object -> kind.serviceKeyOf(object).map(k -> List.of(k.toString())).orElse(List.of())));
  }

  /** The cached objects of one Service, found through the index (not a scan). */
  static <T extends HasMetadata> List<T> objectsOf(Generation<T> generation, ServiceKey key) {
    return generation.byIndex(key.namespace(), NAME, key.toString());
  }

  /** Every Service with at least one cached object. */
  static <T extends HasMetadata> Set<ServiceKey> keysOf(
      WatchedKind<T> kind, Generation<T> generation) {
    Set<ServiceKey> keys = new TreeSet<>();
    for (T object : generation.objects()) {
      kind.serviceKeyOf(object).ifPresent(keys::add);
    }
    return keys;
  }
}
