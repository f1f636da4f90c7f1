package dev.routesync.kube;

import dev.routesync.kube.translate.ObjectTranslation;
import dev.routesync.kube.translate.SkipReason;
import dev.routesync.table.ServiceKey;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.Optional;

/**
 * What differs between watching EndpointSlices and legacy Endpoints: how to build the informer,
 * which Service an object belongs to, and how a Service's objects translate.
 */
public interface WatchedKind<T extends HasMetadata> {

  /**
   * Objects per page of the initial list and of every relist ({@code limit}/{@code continue}). A
   * page is held whole while it is decoded and translated, and an EndpointSlice holds up to 100
   * endpoints as the controller writes them (an Endpoints object up to 1,000 addresses): 500 slices
   * of 100 endpoints with their pod references were about 14 MB of JSON and more of decoded
   * objects, and ended a 96 MiB heap at 150,000 endpoints. 50 keeps a page near a megabyte and a
   * 150,000-endpoint list to 30 requests.
   */
  long LIST_PAGE = 50;

  /** The resource kind, as a metric label and in logs. */
  String kind();

  /**
   * An informer (not yet started) on this kind, filtered by the label selector on the API server.
   *
   * @param namespace one namespace, or {@code null} for all
   */
  SharedIndexInformer<T> newInformer(KubernetesClient client, String namespace, String selector);

  Optional<ServiceKey> serviceKeyOf(T object);

  /**
   * One object's endpoints and skips, translated once when it arrives ({@link ObjectStore}); a
   * Service's are merged from these at flush.
   */
  ObjectTranslation translateOne(T object);

  /**
   * A metadata-only stand-in for an object the store no longer holds (fabric8 hands it to the event
   * handlers as an update's previous object and a relist's deleted one): namespace, name,
   * resourceVersion, and what {@link #serviceKeyOf} reads to find {@code service}.
   *
   * @param service the Service the object belonged to, or null
   */
  T skeleton(String namespace, String name, String resourceVersion, ServiceKey service);

  /** Why an object for which {@link #serviceKeyOf} found no Service is skipped. */
  SkipReason unkeyedReason();
}
