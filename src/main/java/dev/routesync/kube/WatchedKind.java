package dev.routesync.kube;

import dev.routesync.kube.translate.SkipReason;
import dev.routesync.kube.translate.Translation;
import dev.routesync.table.ServiceKey;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.Collection;
import java.util.Optional;

/**
 * What differs between watching EndpointSlices and legacy Endpoints: how to build the informer,
 * which Service an object belongs to, and how a Service's objects translate.
 */
public interface WatchedKind<T extends HasMetadata> {

  /** The resource kind, as a metric label and in logs. */
  String kind();

  /**
   * An informer (not yet started) on this kind, filtered by the label selector on the API server.
   *
   * @param namespace one namespace, or {@code null} for all
   */
  SharedIndexInformer<T> newInformer(KubernetesClient client, String namespace, String selector);

  Optional<ServiceKey> serviceKeyOf(T object);

  Translation translate(Collection<T> objectsOfOneService);

  /** Why an object for which {@link #serviceKeyOf} found no Service is skipped. */
  SkipReason unkeyedReason();
}
