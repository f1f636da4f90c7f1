package dev.routesync.kube;

import dev.routesync.table.ServiceKey;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ExceptionHandler;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;

/**
 * One list-and-watch of the watched kind: an informer per namespace (or one for all namespaces) and
 * their caches. A relist is a new generation built beside the current one and swapped in once it
 * has synced, so the served state never passes through empty.
 *
 * <p>Threading: created and stopped on the sync context; its caches are written by fabric8's
 * threads and are safe to read from the sync context.
 */
final class Generation<T extends HasMetadata> {

  private final int id;
  private final WatchedKind<T> kind;
  // Keyed by namespace; the null key is the all-namespaces informer.
  private final Map<String, SharedIndexInformer<T>> informers = new LinkedHashMap<>();
  private volatile boolean failed;

  Generation(
      int id,
      KubernetesClient client,
      WatchedKind<T> kind,
      WatchSettings settings,
      ResourceEventHandler<T> handler,
      ExceptionHandler exceptionHandler) {
    this.id = id;
    this.kind = kind;
    // A null namespace means one informer over all namespaces.
    List<String> namespaces =
        settings.namespaces().isEmpty() ? Arrays.asList((String) null) : settings.namespaces();
    for (String namespace : namespaces) {
      SharedIndexInformer<T> informer =
          kind.newInformer(client, namespace, settings.labelSelector());
      informer.addIndexers(
          Map.of(
              WatchedKind.SERVICE_INDEX,
              object ->
                  kind.serviceKeyOf(object).map(k -> List.of(k.toString())).orElse(List.of())));
      informer.exceptionHandler(exceptionHandler);
      informer.addEventHandler(handler);
      informers.put(namespace, informer);
    }
  }

  int id() {
    return id;
  }

  /** Starts every informer; completes once all have listed and are watching. */
  CompletableFuture<Void> start() {
    List<CompletableFuture<Void>> started = new ArrayList<>();
    for (SharedIndexInformer<T> informer : informers.values()) {
      started.add(informer.start().toCompletableFuture());
    }
    return CompletableFuture.allOf(started.toArray(CompletableFuture[]::new));
  }

  void markFailed() {
    failed = true;
  }

  boolean isFailed() {
    return failed;
  }

  boolean isWatching() {
    if (failed) {
      return false;
    }
    for (SharedIndexInformer<T> informer : informers.values()) {
      if (!informer.isWatching()) {
        return false;
      }
    }
    return true;
  }

  /** The cached objects of one Service, found through the index (not a scan). */
  List<T> objectsOf(ServiceKey key) {
    SharedIndexInformer<T> informer =
        informers.containsKey(null) ? informers.get(null) : informers.get(key.namespace());
    return informer == null
        ? List.of()
        : informer.getIndexer().byIndex(WatchedKind.SERVICE_INDEX, key.toString());
  }

  /** Every Service with at least one cached object. */
  Set<ServiceKey> serviceKeys() {
    Set<ServiceKey> keys = new TreeSet<>();
    for (SharedIndexInformer<T> informer : informers.values()) {
      for (T object : informer.getStore().list()) {
        Optional<ServiceKey> key = kind.serviceKeyOf(object);
        key.ifPresent(keys::add);
      }
    }
    return keys;
  }

  /** Stops the informers; their caches stay readable, so a stopped generation can be served. */
  void stop() {
    informers.values().forEach(SharedIndexInformer::stop);
  }

  @Override
  public String toString() {
    return kind.kind() + " generation " + id;
  }
}
