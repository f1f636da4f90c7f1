package dev.routesync.kube.decode;

import io.fabric8.kubernetes.api.model.Endpoints;
import io.fabric8.kubernetes.api.model.EndpointsList;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodList;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceList;
import java.util.function.Supplier;
import tools.jackson.core.JsonParser;

/**
 * One kind the fast path reads: its {@code kind} and {@code apiVersion}, how to make an empty
 * object and an empty list (with the model's defaults, as data binding starts from), and how to
 * read each field of either.
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
    Fields<L> listFields) {

  static final DecodedKind<EndpointSlice, EndpointSliceList> ENDPOINT_SLICES =
      new DecodedKind<>(
          "EndpointSlice",
          "discovery.k8s.io/v1",
          EndpointSlice::new,
          SliceReader::field,
          EndpointSliceList.class,
          EndpointSliceList::new,
          SliceReader::listField);

  static final DecodedKind<Endpoints, EndpointsList> ENDPOINTS =
      new DecodedKind<>(
          "Endpoints",
          "v1",
          Endpoints::new,
          EndpointsReader::field,
          EndpointsList.class,
          EndpointsList::new,
          EndpointsReader::listField);

  /** The node's Pods, for the drift detector: only the fields it reads ({@link PodReader}). */
  static final DecodedKind<Pod, PodList> PODS =
      new DecodedKind<>(
          "Pod",
          "v1",
          Pod::new,
          PodReader::field,
          PodList.class,
          PodList::new,
          PodReader::listField);

  /** Reads one field of an object or list; false for a field it does not keep (skipped). */
  @FunctionalInterface
  interface Fields<T> {
    boolean field(T object, String name, JsonParser value);
  }

  /**
   * The list whose {@code START_OBJECT} is the current token. Its own kind and apiVersion are read
   * as data binding reads them, whatever they say: the CRUD mock writes {@code v1 List}.
   */
  L readList(JsonParser parser) {
    L list = newList.get();
    Tokens.object(parser, (name, value) -> listFields.field(list, name, value));
    return list;
  }
}
