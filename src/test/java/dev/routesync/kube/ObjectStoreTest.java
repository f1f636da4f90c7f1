package dev.routesync.kube;

import static dev.routesync.testing.Slices.slice;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.routesync.kube.translate.ObjectTranslation;
import dev.routesync.kube.translate.SkipReason;
import dev.routesync.kube.translate.Translation;
import dev.routesync.kube.watch.Generation;
import dev.routesync.kube.watch.GenerationListener;
import dev.routesync.kube.watch.WatchEvent;
import dev.routesync.observe.Metrics;
import dev.routesync.table.Endpoint;
import dev.routesync.table.ServiceKey;
import dev.routesync.testing.MockCluster;
import dev.routesync.testing.Slices.Pod;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The informer's compact store over the CRUD mock (paged, as a real API server pages a list): no
 * decoded object is kept, each object version is translated once however often its Service is read,
 * and a healthy one-slice Service's endpoint list is the one the store holds, also across a relist
 * that changes nothing.
 */
class ObjectStoreTest {

  private static final Duration CONVERGE = Duration.ofSeconds(10);
  private static final ServiceKey WEB = new ServiceKey("shop", "web");

  private final MockCluster cluster = new MockCluster();
  private final KubernetesClient client = cluster.client();
  private final CountingKind kind = new CountingKind();
  private final ServiceCache<EndpointSlice> cache =
      new ServiceCache<>(
          kind,
          new SkipReporter(
              new Metrics(new SimpleMeterRegistry()).skips(),
              System::nanoTime,
              10,
              TimeUnit.SECONDS));
  private final List<Generation<EndpointSlice>> started = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    cluster.close();
    started.forEach(Generation::stop);
  }

  private static List<Pod> pods(String prefix, int count, int from) {
    return IntStream.range(from, from + count)
        .mapToObj(i -> Pod.ready(prefix + "-" + i, "10.0." + (i / 250) + "." + (i % 250 + 1)))
        .toList();
  }

  private Generation<EndpointSlice> synced(int id) throws Exception {
    CompletableFuture<Void> synced = new CompletableFuture<>();
    Generation<EndpointSlice> generation =
        new Generation<>(
            id,
            ServiceIndex.spec(
                kind, client, WatchSettings.of(List.of(), "mesh-managed=true"), cache, null),
            new GenerationListener<>() {
              @Override
              public void synced(Generation<EndpointSlice> generation) {
                synced.complete(null);
              }

              @Override
              public void failed(Generation<EndpointSlice> generation, Throwable error) {
                synced.completeExceptionally(error);
              }

              @Override
              public void event(
                  Generation<EndpointSlice> generation, WatchEvent<EndpointSlice> event) {}

              @Override
              public void relistingInPlace(Generation<EndpointSlice> generation) {}
            },
            System::nanoTime);
    started.add(generation);
    generation.start();
    synced.get(20, TimeUnit.SECONDS);
    cache.swap(generation);
    return generation;
  }

  @Test
  void keepsNoDecodedObjectOnlyWhatFabric8AndTheSinkRead() throws Exception {
    cluster.apply(slice("shop", "web-a", "web", true, 8080, pods("web", 3, 0)));
    Generation<EndpointSlice> generation = synced(1);

    List<EndpointSlice> held = generation.objects();
    assertThat(held).hasSize(1);
    EndpointSlice skeleton = held.get(0);
    // What fabric8 reads back (key, version) and the sink (the Service it belonged to)...
    assertThat(skeleton.getMetadata().getName()).isEqualTo("web-a");
    assertThat(skeleton.getMetadata().getNamespace()).isEqualTo("shop");
    assertThat(skeleton.getMetadata().getResourceVersion()).isNotNull();
    assertThat(kind.serviceKeyOf(skeleton)).contains(WEB);
    // ... and nothing else: the endpoints live on only as their translation.
    assertThat(skeleton.getEndpoints()).isNullOrEmpty();
    assertThat(skeleton.getPorts()).isNullOrEmpty();
    assertThat(skeleton.getMetadata().getAnnotations()).isNullOrEmpty();
    assertThat(cache.stateOf(WEB).orElseThrow().endpoints()).hasSize(3);
  }

  @Test
  void eachObjectVersionIsTranslatedOnceWithItsTriggerTimeHoweverOftenItsServiceIsRead()
      throws Exception {
    cluster.apply(slice("shop", "web-a", "web", true, 8080, pods("web", 2, 0)));
    cluster.apply(slice("shop", "web-b", "web", true, 8080, pods("web", 2, 10)));
    synced(1);
    assertThat(kind.translated.get()).isEqualTo(2);

    for (int i = 0; i < 5; i++) {
      var found = cache.find(WEB).orElseThrow();
      assertThat(found.state().endpoints()).hasSize(4);
      assertThat(found.triggerTime()).isNotNull();
    }
    assertThat(kind.translated.get()).as("reads translate nothing").isEqualTo(2);

    Instant before = cache.find(WEB).orElseThrow().triggerTime();
    cluster.apply(slice("shop", "web-b", "web", true, 8080, pods("web", 3, 10)));
    await().atMost(CONVERGE).until(() -> cache.stateOf(WEB).orElseThrow().endpoints().size() == 5);
    assertThat(kind.translated.get()).as("one translation per new object version").isEqualTo(3);
    assertThat(cache.find(WEB).orElseThrow().triggerTime()).isAfterOrEqualTo(before);
  }

  @Test
  void aHealthyOneSliceServiceSharesItsEndpointListAcrossReadsAndAnUnchangedRelist()
      throws Exception {
    cluster.apply(slice("shop", "web-a", "web", true, 8080, pods("web", 25, 0)));
    synced(1);
    List<Endpoint> first = cache.stateOf(WEB).orElseThrow().endpoints();
    assertThat(cache.stateOf(WEB).orElseThrow().endpoints()).isSameAs(first);

    // A relist that finds the same slice: a new store, the same endpoints held.
    synced(2);
    assertThat(cache.stateOf(WEB).orElseThrow().endpoints()).isSameAs(first);
  }

  @Test
  void theServiceKeyIsInternedWhenNewAndKeptAsHeldAcrossUpdatesAndRelists() throws Exception {
    // Each decode of the label is a new, equal string: the key holds the interned one (which the
    // compact Services and the drift detector hold too), and an update or a relist naming the same
    // Service keeps the key held rather than interning again.
    cluster.apply(slice("shop", "web-a", "web", true, 8080, pods("web", 2, 0)));
    synced(1);
    ServiceKey first = cache.find(WEB).orElseThrow().key();
    assertThat(first.name()).isSameAs("web".intern());
    assertThat(first.namespace()).isSameAs("shop".intern());

    cluster.apply(slice("shop", "web-a", "web", true, 8080, pods("web", 3, 0)));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> cache.find(WEB).orElseThrow().state().endpoints().size() == 3);
    assertThat(cache.find(WEB).orElseThrow().key()).isSameAs(first);
    synced(2);
    assertThat(cache.find(WEB).orElseThrow().key()).isSameAs(first);
  }

  @Test
  void aMalformedUpdateReplacesTheGoodVersionAsBeforeItsSkipCountedOnce() throws Exception {
    // Behaviour kept from the cache that translated at flush: the object's latest version is what
    // counts, so a slice updated to a bad port contributes nothing (and is skipped, once).
    cluster.apply(slice("shop", "web-a", "web", true, 8080, pods("web", 2, 0)));
    cluster.apply(slice("shop", "web-b", "web", true, 8080, pods("web", 1, 10)));
    synced(1);
    assertThat(cache.stateOf(WEB).orElseThrow().endpoints()).hasSize(3);

    cluster.apply(slice("shop", "web-b", "web", true, 0, pods("web", 1, 10)));
    await().atMost(CONVERGE).until(() -> cache.stateOf(WEB).orElseThrow().endpoints().size() == 2);
    Translation merged =
        dev.routesync.kube.translate.ServiceMerge.merge(
            ServiceIndex.objectsOf(started.get(0), WEB).stream()
                .map(StoredObject::translation)
                .toList());
    assertThat(merged.skips()).extracting(s -> s.reason()).containsExactly(SkipReason.INVALID_PORT);
  }

  @Test
  void listsInPagesFromTheMockMadeFaithful() throws Exception {
    int slices = (int) WatchedKind.LIST_PAGE + 20;
    for (int i = 0; i < slices; i++) {
      cluster.apply(slice("shop", "svc-" + i + "-a", "svc-" + i, true, 8080, pods("p" + i, 1, 0)));
    }
    synced(1);

    assertThat(ServiceIndex.keysOf(started.get(0))).hasSize(slices);
    assertThat(cluster.continuedListPages()).as("the second page, from a continue token").isOne();
  }

  /** The slice kind, counting its per-object translations. */
  private static final class CountingKind implements WatchedKind<EndpointSlice> {

    private final EndpointSliceKind slices = new EndpointSliceKind();
    final AtomicInteger translated = new AtomicInteger();

    @Override
    public String kind() {
      return slices.kind();
    }

    @Override
    public SharedIndexInformer<EndpointSlice> newInformer(
        KubernetesClient client, String namespace, String selector) {
      return slices.newInformer(client, namespace, selector);
    }

    @Override
    public Optional<ServiceKey> serviceKeyOf(EndpointSlice object) {
      return slices.serviceKeyOf(object);
    }

    @Override
    public ObjectTranslation translateOne(EndpointSlice object) {
      translated.incrementAndGet();
      return slices.translateOne(object);
    }

    @Override
    public EndpointSlice skeleton(
        String namespace, String name, String resourceVersion, ServiceKey service) {
      return slices.skeleton(namespace, name, resourceVersion, service);
    }

    @Override
    public SkipReason unkeyedReason() {
      return slices.unkeyedReason();
    }
  }
}
