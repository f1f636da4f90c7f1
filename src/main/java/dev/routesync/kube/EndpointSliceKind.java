package dev.routesync.kube;

import dev.routesync.kube.translate.ObjectTranslation;
import dev.routesync.kube.translate.SkipReason;
import dev.routesync.kube.translate.SliceTranslator;
import dev.routesync.table.ServiceKey;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.Map;
import java.util.Optional;

/** {@code discovery.k8s.io/v1} EndpointSlices: the default source. */
public final class EndpointSliceKind implements WatchedKind<EndpointSlice> {

  @Override
  public String kind() {
    return "EndpointSlice";
  }

  @Override
  public SharedIndexInformer<EndpointSlice> newInformer(
      KubernetesClient client, String namespace, String selector) {
    var slices = client.discovery().v1().endpointSlices();
    var scoped = namespace == null ? slices.inAnyNamespace() : slices.inNamespace(namespace);
    return scoped.withLabelSelector(selector).withLimit(WatchedKind.LIST_PAGE).runnableInformer(0);
  }

  @Override
  public Optional<ServiceKey> serviceKeyOf(EndpointSlice slice) {
    return SliceTranslator.serviceKeyOf(slice);
  }

  @Override
  public ObjectTranslation translateOne(EndpointSlice slice) {
    return SliceTranslator.translateOne(slice);
  }

  @Override
  public EndpointSlice skeleton(
      String namespace, String name, String resourceVersion, ServiceKey service) {
    ObjectMetaBuilder meta =
        new ObjectMetaBuilder()
            .withNamespace(namespace)
            .withName(name)
            .withResourceVersion(resourceVersion);
    if (service != null) {
      meta.withLabels(Map.of(SliceTranslator.SERVICE_NAME_LABEL, service.name()));
    }
    EndpointSlice slice = new EndpointSlice();
    slice.setMetadata(meta.build());
    return slice;
  }

  @Override
  public SkipReason unkeyedReason() {
    return SkipReason.NO_SERVICE_LABEL;
  }
}
