package dev.routesync.kube;

import dev.routesync.kube.watch.Generation;
import dev.routesync.kube.watch.ResourceSpec;
import dev.routesync.table.ServiceKey;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * EndpointSlices (or Endpoints) by the Service they belong to: the {@link ResourceSpec} of their
 * watch, whose informers keep an {@link ObjectStore} (each object translated once, indexed by
 * Service), and the reads of a {@link Generation} by Service that the cache and the sink make.
 */
public final class ServiceIndex {

  private ServiceIndex() {}

  /**
   * The watch of {@code kind} in the configured namespaces, filtered by the label selector on the
   * API server, listed in pages, with each object kept only as its translation.
   */
  public static <T extends HasMetadata> ResourceSpec<T> spec(
      WatchedKind<T> kind, KubernetesClient client, WatchSettings settings) {
    return spec(kind, client, settings, null, key -> null);
  }

  /**
   * The watch that feeds {@code cache}: a relist keeps the served generation's translation of every
   * object whose translation is unchanged, so the table and the new store share it.
   *
   * @param forms what a second consumer of the watch keeps of each object, made by the store (the
   *     drift detector's form of a slice), or null when there is no second consumer
   */
  public static <T extends HasMetadata> ResourceSpec<T> spec(
      WatchedKind<T> kind,
      KubernetesClient client,
      WatchSettings settings,
      ServiceCache<T> cache,
      CompactForms<T, ?> forms) {
    return spec(kind, client, settings, forms, cache::served);
  }

  private static <T extends HasMetadata> ResourceSpec<T> spec(
      WatchedKind<T> kind,
      KubernetesClient client,
      WatchSettings settings,
      CompactForms<T, ?> forms,
      Function<String, StoredObject<T>> served) {
    return new ResourceSpec<>(
        kind.kind(),
        settings.namespaces(),
        namespace -> kind.newInformer(client, namespace, settings.labelSelector()),
        Map.of(),
        namespace -> new ObjectStore<>(kind, forms, served));
  }

  /** The store of a generation built from {@link #spec} that holds {@code namespace}'s objects. */
  @SuppressWarnings("unchecked")
  static <T extends HasMetadata> ObjectStore<T> storeOf(
      Generation<T> generation, String namespace) {
    ItemStore<T> store = generation.itemStore(namespace);
    return store instanceof ObjectStore<?> objects ? (ObjectStore<T>) objects : null;
  }

  /** The stored objects of one Service, sorted by name, found through the index (not a scan). */
  static <T extends HasMetadata> List<StoredObject<T>> objectsOf(
      Generation<T> generation, ServiceKey key) {
    ObjectStore<T> store = storeOf(generation, key.namespace());
    return store == null ? List.of() : store.objectsOf(key);
  }

  /** Every Service with at least one stored object. */
  static <T extends HasMetadata> Set<ServiceKey> keysOf(Generation<T> generation) {
    Set<ServiceKey> keys = new TreeSet<>();
    for (ItemStore<T> store : generation.itemStores()) {
      if (store instanceof ObjectStore<?> objects) {
        objects.services().forEach(keys::add);
      }
    }
    return keys;
  }
}
