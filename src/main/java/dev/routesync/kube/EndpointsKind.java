package dev.routesync.kube;

import dev.routesync.kube.translate.EndpointsTranslator;
import dev.routesync.kube.translate.ObjectTranslation;
import dev.routesync.kube.translate.SkipReason;
import dev.routesync.table.ServiceKey;
import io.fabric8.kubernetes.api.model.Endpoints;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.Optional;

/** Core {@code v1} Endpoints, for clusters without EndpointSlices ({@code --source endpoints}). */
public final class EndpointsKind implements WatchedKind<Endpoints> {

  @Override
  public String kind() {
    return "Endpoints";
  }

  @Override
  public SharedIndexInformer<Endpoints> newInformer(
      KubernetesClient client, String namespace, String selector) {
    var endpoints = client.endpoints();
    var scoped = namespace == null ? endpoints.inAnyNamespace() : endpoints.inNamespace(namespace);
    return scoped.withLabelSelector(selector).withLimit(WatchedKind.LIST_PAGE).runnableInformer(0);
  }

  @Override
  public Optional<ServiceKey> serviceKeyOf(Endpoints endpoints) {
    return EndpointsTranslator.serviceKeyOf(endpoints);
  }

  @Override
  public ObjectTranslation translateOne(Endpoints endpoints) {
    return EndpointsTranslator.translateOne(endpoints);
  }

  @Override
  public Endpoints skeleton(
      String namespace, String name, String resourceVersion, ServiceKey service) {
    Endpoints endpoints = new Endpoints();
    endpoints.setMetadata(
        new ObjectMetaBuilder()
            .withNamespace(namespace)
            .withName(name)
            .withResourceVersion(resourceVersion)
            .build());
    return endpoints;
  }

  @Override
  public SkipReason unkeyedReason() {
    return SkipReason.INVALID_METADATA;
  }
}
