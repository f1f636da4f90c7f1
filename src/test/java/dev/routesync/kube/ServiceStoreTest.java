package dev.routesync.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.routesync.table.Port;
import dev.routesync.testing.ApiServerServices;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.informers.impl.cache.CacheImpl;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.openjdk.jol.info.GraphLayout;

/** The Services informer's compact store: what it keeps of a Service, and what that costs. */
class ServiceStoreTest {

  static {
    // JOL lays out records (the table's keys) only with this, without its agent (JDK 17).
    System.setProperty("jol.magicFieldOffset", "true");
  }

  /** Enough for a stable average; JOL walks slowly without its agent. */
  private static final int SERVICES = 200;

  /**
   * The bound per Service, fabric8's store's entry included; 8,364 bytes in fabric8's own store
   * (the decoded Service and its two index entries), about 1,000 compact.
   */
  private static final long MAX_BYTES_PER_SERVICE = 1_200;

  private final ServiceStore store = new ServiceStore(key -> null);

  private Service stored(int index) {
    Service decoded = ApiServerServices.decoded(index);
    store.put(store.getKey(decoded), decoded);
    return store.get(store.getKey(decoded));
  }

  @Test
  void aServiceIsStoredWithOnlyItsIdentitySelectorTypeAndPorts() {
    Service service = stored(7);

    assertThat(service.getMetadata().getNamespace()).isEqualTo("shop-007");
    assertThat(service.getMetadata().getName()).isEqualTo("checkout-00007");
    assertThat(service.getMetadata().getUid()).isEqualTo("5f0c7a52-8d0e-4c1b-9a57-2b1c00000007");
    assertThat(service.getMetadata().getResourceVersion()).isEqualTo("48000007");
    assertThat(service.getMetadata().getManagedFields()).isEmpty();
    assertThat(service.getMetadata().getAnnotations()).isEmpty();
    assertThat(service.getMetadata().getLabels()).isEmpty();
    assertThat(service.getStatus()).isNull();
    assertThat(service.getSpec().getClusterIP()).isNull();
    assertThat(service.getSpec().getClusterIPs()).isEmpty();
    assertThat(service.getSpec().getIpFamilies()).containsExactly("IPv4");
    assertThat(service.getSpec().getSessionAffinity()).isNull();
    assertThat(service.getSpec().getType()).isEqualTo("ClusterIP");
    assertThat(service.getSpec().getSelector())
        .isEqualTo(
            Map.of(
                "app.kubernetes.io/name",
                "checkout",
                "app.kubernetes.io/instance",
                "checkout-00007"));
    assertThat(service.getSpec().getPorts())
        .extracting(
            p -> p.getName(), p -> p.getPort(), p -> p.getProtocol(), p -> p.getTargetPort())
        .containsExactly(
            tuple("http", 80, "TCP", new IntOrString("http")),
            tuple("grpc", 9090, "TCP", new IntOrString(9090)));
    assertThat(ServicePorts.portsOf(service))
        .containsExactly(new Port("grpc", 9090, "TCP"), new Port("http", 80, "TCP"));
  }

  @Test
  void theDecodedInstanceItselfIsStoredSoTheEventHandlersGetTheCompactOne() {
    // fabric8 puts an object in the store, then notifies its handlers with that same instance.
    Service decoded = ApiServerServices.decoded(3);

    store.put(store.getKey(decoded), decoded);

    assertThat(store.get("shop-003/checkout-00003")).isSameAs(decoded);
    assertThat(decoded.getMetadata().getManagedFields()).isEmpty();
    assertThat(decoded.getStatus()).isNull();
  }

  @Test
  void aRelistKeepsTheServedInstanceOfAnUnchangedServiceAndTakesAChangedOne() {
    Service served = stored(1);
    Service servedBefore = stored(2);
    ServiceStore relisted = new ServiceStore(store::get);

    Service again = ApiServerServices.decoded(1);
    relisted.put(relisted.getKey(again), again);
    Service changed = ApiServerServices.decoded(2);
    changed.getSpec().getPorts().get(0).setPort(8080);
    relisted.put(relisted.getKey(changed), changed);

    assertThat(relisted.get("shop-001/checkout-00001")).isSameAs(served);
    assertThat(relisted.get("shop-002/checkout-00002"))
        .isSameAs(changed)
        .isNotEqualTo(servedBefore);
  }

  @Test
  void anUpdateReturnsThePreviousCompactServiceAndARemovalForgetsIt() {
    Service first = stored(5);
    Service update = ApiServerServices.decoded(5);
    update.getMetadata().setResourceVersion("49000000");

    assertThat(store.put("shop-005/checkout-00005", update)).isSameAs(first);
    assertThat(store.remove("shop-005/checkout-00005")).isSameAs(update);
    assertThat(store.size()).isZero();
    assertThat(store.get("shop-005/checkout-00005")).isNull();
  }

  @Test
  void aServiceCostsAFewHundredBytesWhereFabric8sStoreKeptEightKilobytes() {
    List<Service> decoded = ApiServerServices.decodedList(SERVICES);
    CacheImpl<Service> fabric8 = fabric8sOwnCache();
    decoded.forEach(fabric8::put);
    long before = GraphLayout.parseInstance(fabric8).totalSize() / SERVICES;

    for (Service service : ApiServerServices.decodedList(SERVICES)) {
      store.put(store.getKey(service), service);
    }
    long after = GraphLayout.parseInstance(store).totalSize() / SERVICES;

    System.out.printf(
        "Services watch store, bytes per Service: fabric8's %,d, compact %,d%n", before, after);
    assertThat(before).as("fabric8's own store").isGreaterThan(6_000);
    assertThat(after).isLessThanOrEqualTo(MAX_BYTES_PER_SERVICE);
  }

  /** What the informer kept before: fabric8's cache, its namespace index and a key index. */
  private static CacheImpl<Service> fabric8sOwnCache() {
    CacheImpl<Service> cache =
        new CacheImpl<>(
            CacheImpl.NAMESPACE_INDEX,
            CacheImpl::metaNamespaceIndexFunc,
            CacheImpl::metaNamespaceKeyFunc);
    cache.addIndexers(
        Map.of(
            "key",
            service ->
                List.of(
                    service.getMetadata().getNamespace() + "/" + service.getMetadata().getName())));
    return cache;
  }
}
