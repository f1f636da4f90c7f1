package dev.routesync.kube;

import dev.routesync.rules.CompactServices;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * The Services informer's item store (fabric8 {@code SharedIndexInformer.itemStore}): each Service
 * in its {@link CompactServices compact form} (identity, selector, type, publishNotReadyAddresses,
 * ports), which is all the agent reads of it ({@link ServicePorts}, and the drift detector through
 * {@code rules/}). fabric8's own store kept every decoded Service whole, about 8 KB with its
 * managedFields, last-applied annotation, labels, cluster IPs and status: 330 MB at 40,000
 * Services, and as much again beside it during a relist.
 *
 * <p>The decoded object is compacted in place, before fabric8 hands it to the event handlers
 * (fabric8 puts an object in the store, then notifies with that same instance): the handlers get
 * the compact Service, and the drift detector, which keeps what it is handed, holds the very
 * instance stored here rather than a second copy. Nothing else holds the object yet when it arrives
 * (fabric8 has just decoded it), so the change is seen by nobody.
 *
 * <p>A relist builds a new generation beside the served one: a Service whose compact form equals
 * the one the served generation holds ({@code served}) keeps that instance, so an unchanged relist
 * keeps no second copy, and the detector's instances stay the stored ones.
 *
 * <p>Threading: written by the informer (fabric8 serialises its writes), read from the sync
 * context; the map is concurrent, and a stored Service is not changed after it is stored.
 */
final class ServiceStore implements ItemStore<Service> {

  private final Function<String, Service> served;
  private final Map<String, Service> byKey = new ConcurrentHashMap<>();

  /**
   * @param served the served generation's Service for a key ({@code namespace/name}), or null
   */
  ServiceStore(Function<String, Service> served) {
    this.served = served;
  }

  @Override
  public String getKey(Service service) {
    ObjectMeta meta = service.getMetadata();
    String namespace = meta == null ? null : meta.getNamespace();
    String name = meta == null ? null : meta.getName();
    return namespace == null || namespace.isEmpty() ? name : namespace + "/" + name;
  }

  @Override
  public Service put(String key, Service service) {
    compactInPlace(service);
    Service kept = service;
    Service known = byKey.get(key);
    if (known == null) {
      known = served.apply(key);
    }
    if (known != null && known != service && known.equals(service)) {
      kept = known;
    }
    return byKey.put(key, kept);
  }

  @Override
  public Service remove(String key) {
    return byKey.remove(key);
  }

  @Override
  public Stream<String> keySet() {
    return byKey.keySet().stream();
  }

  @Override
  public Stream<Service> values() {
    return byKey.values().stream();
  }

  @Override
  public int size() {
    return byKey.size();
  }

  @Override
  public Service get(String key) {
    return byKey.get(key);
  }

  /**
   * Drops all but the compact form's fields from the decoded object itself (its metadata and spec
   * become compact copies, its status goes), so that the instance fabric8 notifies with is the one
   * stored.
   */
  static void compactInPlace(Service service) {
    service.setApiVersion("v1");
    service.setKind(ServicePorts.KIND);
    service.setMetadata(CompactServices.metadata(service.getMetadata()));
    service.setSpec(CompactServices.spec(service.getSpec()));
    service.setStatus(null);
    service.setAdditionalProperties(Map.of());
  }

  @Override
  public String toString() {
    return "Service store (" + byKey.size() + " objects)";
  }
}
