package dev.routesync.kube.watch;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * What one {@link ResourceWatch} lists and watches: a resource kind, its scope and the indexes its
 * consumer reads the cache through. Selectors (label or field) are the informer factory's business,
 * so a node-scoped Pods watch and a label-selected EndpointSlice watch are the same machinery.
 *
 * @param kind the resource kind, as a metric label and in logs
 * @param namespaces namespaces to watch, one informer each; empty means one informer over all
 * @param informers builds one informer (not yet started) with its selectors applied on the server
 * @param indexers named indexes over the cached objects (fabric8 {@code addIndexers}), for reads by
 *     key rather than scans
 * @param stores builds each informer's item store, or null for fabric8's own (which keeps every
 *     decoded object); a consumer that keeps a compact form of the objects gives its own here
 */
public record ResourceSpec<T extends HasMetadata>(
    String kind,
    List<String> namespaces,
    InformerFactory<T> informers,
    Map<String, Function<T, List<String>>> indexers,
    StoreFactory<T> stores) {

  public ResourceSpec {
    Objects.requireNonNull(kind, "kind");
    namespaces = List.copyOf(namespaces);
    Objects.requireNonNull(informers, "informers");
    indexers = Map.copyOf(indexers);
  }

  /** A spec whose informers keep fabric8's own store. */
  public ResourceSpec(
      String kind,
      List<String> namespaces,
      InformerFactory<T> informers,
      Map<String, Function<T, List<String>>> indexers) {
    this(kind, namespaces, informers, indexers, null);
  }

  /** Builds the item store of one informer of a generation. */
  @FunctionalInterface
  public interface StoreFactory<T extends HasMetadata> {

    /**
     * @param namespace the informer's namespace, or {@code null} for all
     */
    ItemStore<T> newStore(String namespace);
  }

  /** Builds an informer on the spec's kind. */
  @FunctionalInterface
  public interface InformerFactory<T extends HasMetadata> {

    /**
     * @param namespace one namespace, or {@code null} for all
     */
    SharedIndexInformer<T> newInformer(String namespace);
  }
}
