package dev.routesync.kube.watch;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * One list-and-watch of a {@link ResourceSpec}: an informer per namespace (or one for all
 * namespaces) and their caches. A relist is a new generation built beside the current one and
 * swapped in once it has synced, so the served state never passes through empty. It reports to a
 * {@link GenerationListener}, naming itself.
 *
 * <p>Threading: created, started and stopped on the sync context; its caches are written by
 * fabric8's threads and are safe to read from the sync context.
 */
public final class Generation<T extends HasMetadata> {

  // fabric8's CacheImpl.NAMESPACE_INDEX (an implementation class).
  private static final String NAMESPACE_INDEX = "namespace";

  private final int id;
  private final String kind;
  // Keyed by namespace; the null key is the all-namespaces informer.
  private final Map<String, SharedIndexInformer<T>> informers = new LinkedHashMap<>();
  // The spec's item stores by namespace, when it gives its own.
  private final Map<String, ItemStore<T>> stores = new LinkedHashMap<>();
  private final GenerationListener<T> listener;
  private volatile boolean failed;
  private volatile boolean synced;

  /**
   * @param clock stamps each event's arrival ({@link WatchEvent#arrivedNanos})
   */
  public Generation(
      int id, ResourceSpec<T> spec, GenerationListener<T> listener, LongSupplier clock) {
    this.id = id;
    this.kind = spec.kind();
    this.listener = listener;
    // A null namespace means one informer over all namespaces.
    List<String> namespaces =
        spec.namespaces().isEmpty() ? Arrays.asList((String) null) : spec.namespaces();
    for (String namespace : namespaces) {
      SharedIndexInformer<T> informer = spec.informers().newInformer(namespace);
      if (spec.stores() != null) {
        ItemStore<T> store = spec.stores().newStore(namespace);
        informer.itemStore(store);
        // fabric8's default index by namespace keeps a key and a version string per object, and
        // nothing reads it: the store indexes what its consumer reads.
        informer.removeIndexer(NAMESPACE_INDEX);
        stores.put(namespace, store);
      }
      informer.addIndexers(spec.indexers());
      informer.exceptionHandler(
          (started, error) -> {
            listener.failed(this, error);
            // Stop this informer: the owner retries with jitter and a fresh cache beside the
            // served one, rather than fabric8's un-jittered in-place retry.
            return false;
          });
      informer.addEventHandler(new Events(clock));
      informers.put(namespace, informer);
    }
  }

  public int id() {
    return id;
  }

  /** Starts every informer; tells the listener once all have listed and are watching. */
  public void start() {
    List<CompletableFuture<Void>> started = new ArrayList<>();
    for (SharedIndexInformer<T> informer : informers.values()) {
      started.add(informer.start().toCompletableFuture());
    }
    CompletableFuture.allOf(started.toArray(CompletableFuture[]::new))
        .whenComplete(
            (ok, error) -> {
              if (error == null) {
                synced = true;
                listener.synced(this);
              } // a failure reaches the listener through the exception handler
            });
  }

  /**
   * Every informer has listed and is watching. Until then its events are not passed on (the
   * generation is handed over whole once it has synced), so they need not even hop threads. Any
   * thread.
   */
  boolean hasSynced() {
    return synced;
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

  /**
   * Each informer's last resourceVersion, in a fixed order: it moves with every event and with
   * every bookmark that carries a newer version (fabric8 handles BOOKMARK without calling the event
   * handlers), so a change is how a bookmark is seen. Any thread.
   */
  List<String> resourceVersions() {
    List<String> versions = new ArrayList<>(informers.size());
    for (SharedIndexInformer<T> informer : informers.values()) {
      versions.add(informer.lastSyncResourceVersion());
    }
    return versions;
  }

  /**
   * The cached objects of {@code namespace} whose index {@code index} holds {@code value}, found
   * through the index (not a scan).
   */
  public List<T> byIndex(String namespace, String index, String value) {
    SharedIndexInformer<T> informer =
        informers.containsKey(null) ? informers.get(null) : informers.get(namespace);
    return informer == null ? List.of() : informer.getIndexer().byIndex(index, value);
  }

  /**
   * The item store (given by the spec's {@link ResourceSpec#stores}) holding {@code namespace}'s
   * objects, or null when the spec gave none or does not watch that namespace.
   */
  public ItemStore<T> itemStore(String namespace) {
    return stores.containsKey(null) ? stores.get(null) : stores.get(namespace);
  }

  /** The spec's item stores, one per informer (empty when it gave none). */
  public List<ItemStore<T>> itemStores() {
    return List.copyOf(stores.values());
  }

  /** Every cached object, over all namespaces. */
  public List<T> objects() {
    List<T> objects = new ArrayList<>();
    for (SharedIndexInformer<T> informer : informers.values()) {
      objects.addAll(informer.getStore().list());
    }
    return objects;
  }

  /** Stops the informers; their caches stay readable, so a stopped generation can be served. */
  public void stop() {
    informers.values().forEach(SharedIndexInformer::stop);
  }

  @Override
  public String toString() {
    return kind + " generation " + id;
  }

  /** Informer callbacks become listener calls naming this generation. */
  private final class Events implements ResourceEventHandler<T> {

    private final LongSupplier clock;

    Events(LongSupplier clock) {
      this.clock = clock;
    }

    @Override
    public void onAdd(T object) {
      event(WatchEvent.Type.ADDED, null, object);
    }

    @Override
    public void onUpdate(T previous, T object) {
      event(WatchEvent.Type.UPDATED, previous, object);
    }

    @Override
    public void onDelete(T object, boolean deletedFinalStateUnknown) {
      event(WatchEvent.Type.DELETED, null, object);
    }

    @Override
    public void onBeforeList(String lastSyncResourceVersion) {
      if (lastSyncResourceVersion != null) {
        listener.relistingInPlace(Generation.this);
      }
    }

    private void event(WatchEvent.Type type, T previous, T object) {
      listener.event(Generation.this, new WatchEvent<>(type, previous, object, clock.getAsLong()));
    }
  }
}
