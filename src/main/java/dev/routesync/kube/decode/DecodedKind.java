package dev.routesync.kube.decode;

import io.fabric8.kubernetes.api.model.Endpoints;
import io.fabric8.kubernetes.api.model.EndpointsList;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ListMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodList;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceList;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import tools.jackson.core.JsonParser;

/**
 * One kind the fast path reads: its {@code kind} and {@code apiVersion}, how to make an empty
 * object and an empty list (with the model's defaults, as data binding starts from), how to read
 * each field of an object, and where a list's fields go.
 *
 * @param <T> the object type
 * @param <L> its list type
 */
record DecodedKind<T extends HasMetadata, L>(
    String kind,
    String apiVersion,
    Supplier<T> newObject,
    Fields<T> fields,
    Class<L> listType,
    Supplier<L> newList,
    ListSetters<L, T> listSetters) {

  static final DecodedKind<EndpointSlice, EndpointSliceList> ENDPOINT_SLICES =
      new DecodedKind<>(
          "EndpointSlice",
          "discovery.k8s.io/v1",
          EndpointSlice::new,
          SliceReader::field,
          EndpointSliceList.class,
          EndpointSliceList::new,
          new ListSetters<>(
              EndpointSliceList::setApiVersion,
              EndpointSliceList::setKind,
              EndpointSliceList::setMetadata,
              EndpointSliceList::setItems));

  static final DecodedKind<Endpoints, EndpointsList> ENDPOINTS =
      new DecodedKind<>(
          "Endpoints",
          "v1",
          Endpoints::new,
          EndpointsReader::field,
          EndpointsList.class,
          EndpointsList::new,
          new ListSetters<>(
              EndpointsList::setApiVersion,
              EndpointsList::setKind,
              EndpointsList::setMetadata,
              EndpointsList::setItems));

  /** The node's Pods, for the drift detector: only the fields it reads ({@link PodReader}). */
  static final DecodedKind<Pod, PodList> PODS =
      new DecodedKind<>(
          "Pod",
          "v1",
          Pod::new,
          PodReader::field,
          PodList.class,
          PodList::new,
          new ListSetters<>(
              PodList::setApiVersion, PodList::setKind, PodList::setMetadata, PodList::setItems));

  /** Reads one field of an object; false for a field it does not keep (skipped). */
  @FunctionalInterface
  interface Fields<T> {
    boolean field(T object, String name, JsonParser value);
  }

  /**
   * Where a list's fields go. fabric8's list models share no interface with setters, so each kind
   * names its own; reading a list is the same for every kind ({@link #readList}).
   */
  record ListSetters<L, T>(
      BiConsumer<L, String> apiVersion,
      BiConsumer<L, String> kind,
      BiConsumer<L, ListMeta> metadata,
      BiConsumer<L, List<T>> items) {}

  /**
   * The list whose {@code START_OBJECT} is the current token. Its own kind and apiVersion are read
   * as data binding reads them, whatever they say: the CRUD mock writes {@code v1 List}.
   */
  L readList(JsonParser parser) {
    L list = newList.get();
    Tokens.object(
        parser,
        (name, value) ->
            MetaReader.listField(
                name,
                value,
                apiVersion -> listSetters.apiVersion().accept(list, apiVersion),
                kind -> listSetters.kind().accept(list, kind),
                metadata -> listSetters.metadata().accept(list, metadata),
                () -> listSetters.items().accept(list, Tokens.list(value, this::readItem))));
    return list;
  }

  /**
   * A list's item: on a real API server without kind or apiVersion, so the model's defaults stay.
   */
  private T readItem(JsonParser parser) {
    T object = newObject.get();
    return Tokens.object(parser, object, (name, value) -> fields.field(object, name, value));
  }
}
