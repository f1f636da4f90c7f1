package dev.routesync.kube;

import dev.routesync.kube.translate.SkipReason;
import dev.routesync.kube.translate.SliceTranslator;
import dev.routesync.kube.translate.Translation;
import dev.routesync.table.ServiceKey;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.Collection;
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
    return scoped.withLabelSelector(selector).runnableInformer(0);
  }

  @Override
  public Optional<ServiceKey> serviceKeyOf(EndpointSlice slice) {
    return SliceTranslator.serviceKeyOf(slice);
  }

  @Override
  public Translation translate(Collection<EndpointSlice> slices) {
    return SliceTranslator.translate(slices);
  }

  @Override
  public SkipReason unkeyedReason() {
    return SkipReason.NO_SERVICE_LABEL;
  }
}
