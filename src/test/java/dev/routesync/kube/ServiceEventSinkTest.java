package dev.routesync.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.routesync.kube.watch.Generation;
import dev.routesync.kube.watch.GenerationListener;
import dev.routesync.kube.watch.WatchEvent;
import dev.routesync.observe.Metrics;
import dev.routesync.sync.Batch;
import dev.routesync.sync.Coalescer;
import dev.routesync.sync.CoalescerSettings;
import dev.routesync.sync.FakeScheduler;
import dev.routesync.table.ServiceKey;
import dev.routesync.testing.MockCluster;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The EndpointSlice side of the watch: events become dirty Service keys, and a relist that swaps in
 * a new generation recomputes every Service known to either generation as one batch.
 */
class ServiceEventSinkTest {

  private static final ServiceKey WEB = new ServiceKey("shop", "web");
  private static final ServiceKey API = new ServiceKey("shop", "api");
  private static final ServiceKey DB = new ServiceKey("shop", "db");

  private final FakeScheduler scheduler = new FakeScheduler();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final SkipReporter skips =
      new SkipReporter(new Metrics(registry).skips(), scheduler::nanoTime, 10, TimeUnit.SECONDS);
  private final EndpointSliceKind kind = new EndpointSliceKind();
  private final ServiceCache<EndpointSlice> cache = new ServiceCache<>(kind, skips);
  private final List<Batch> batches = new ArrayList<>();
  private final Coalescer coalescer =
      new Coalescer(scheduler, CoalescerSettings.defaults(), batches::add);
  private final ServiceEventSink<EndpointSlice> sink =
      new ServiceEventSink<>(kind, cache, coalescer, skips);

  /** A mesh-managed slice with one ready endpoint; {@code service} null means no Service label. */
  private static EndpointSlice slice(String name, String service, String ip) {
    Map<String, String> labels = new LinkedHashMap<>();
    if (service != null) {
      labels.put("kubernetes.io/service-name", service);
    }
    labels.put("mesh-managed", "true");
    return new EndpointSliceBuilder()
        .withNewMetadata()
        .withNamespace("shop")
        .withName(name)
        .withLabels(labels)
        .withResourceVersion("7")
        .endMetadata()
        .withAddressType("IPv4")
        .addNewPort()
        .withName("http")
        .withPort(8080)
        .withProtocol("TCP")
        .endPort()
        .addNewEndpoint()
        .withAddresses(ip)
        .withNewConditions()
        .withReady(true)
        .endConditions()
        .endEndpoint()
        .build();
  }

  private Set<ServiceKey> flushedKeys() {
    scheduler.advance(Duration.ofSeconds(1)); // past debounce and max delay
    Set<ServiceKey> keys = new TreeSet<>();
    batches.forEach(batch -> keys.addAll(batch.keys()));
    return keys;
  }

  private double skipped(String reason) {
    Counter counter = registry.find("routesync.objects.skipped").tag("reason", reason).counter();
    return counter == null ? 0 : counter.count();
  }

  @Test
  void anEventMarksItsServiceDirtyAsOfItsArrival() {
    scheduler.advance(Duration.ofMillis(300));

    sink.event(
        new WatchEvent<>(WatchEvent.Type.ADDED, null, slice("web-a", "web", "10.0.0.1"), 100));

    assertThat(batches).hasSize(1); // a leading edge: published at once
    assertThat(batches.get(0).keys()).containsExactly(WEB);
    assertThat(batches.get(0).changedAt()).containsEntry(WEB, 100L);
  }

  @Test
  void aSliceMovedToAnotherServiceMarksBoth() {
    EndpointSlice before = slice("web-a", "web", "10.0.0.1");
    EndpointSlice after = slice("web-a", "api", "10.0.0.1");

    sink.event(new WatchEvent<>(WatchEvent.Type.UPDATED, before, after, 0));

    assertThat(flushedKeys()).containsExactly(API, WEB);
  }

  @Test
  void anUpdateWithinOneServiceMarksItOnce() {
    sink.event(
        new WatchEvent<>(
            WatchEvent.Type.UPDATED,
            slice("web-a", "web", "10.0.0.1"),
            slice("web-a", "web", "10.0.0.2"),
            0));

    assertThat(flushedKeys()).containsExactly(WEB);
    assertThat(batches).hasSize(1);
  }

  @Test
  void aSliceWithoutAServiceIsSkippedWhenAddedOrUpdatedButNotWhenDeleted() {
    EndpointSlice orphan = slice("orphan", null, "10.0.0.1");

    sink.event(new WatchEvent<>(WatchEvent.Type.ADDED, null, orphan, 0));
    sink.event(new WatchEvent<>(WatchEvent.Type.UPDATED, orphan, orphan, 0));
    sink.event(new WatchEvent<>(WatchEvent.Type.DELETED, null, orphan, 0));

    assertThat(skipped("no_service_label")).isEqualTo(2.0);
    assertThat(flushedKeys()).isEmpty();
  }

  @Test
  void aLabelRemovedMarksTheServiceItLeft() {
    sink.event(
        new WatchEvent<>(
            WatchEvent.Type.UPDATED,
            slice("web-a", "web", "10.0.0.1"),
            slice("web-a", null, "10.0.0.1"),
            0));

    assertThat(flushedKeys()).containsExactly(WEB);
    assertThat(skipped("no_service_label")).isEqualTo(1.0);
  }

  /** Real generations of informers on the CRUD mock API server. */
  @Nested
  class WhenARelistSwapsIn {

    private final MockCluster cluster = new MockCluster();
    private final KubernetesClient client =
        new KubernetesClientBuilder()
            .withConfig(
                new ConfigBuilder(Config.empty())
                    .withMasterUrl(cluster.url())
                    .withRequestTimeout(5000)
                    .withConnectionTimeout(2000)
                    .build())
            .build();
    private final List<Generation<EndpointSlice>> started = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
      cluster.close(); // first: see MockCluster#url
      started.forEach(Generation::stop);
      client.close();
    }

    private void apply(EndpointSlice slice) {
      client.resource(slice).createOr(NonDeletingOperation::update);
    }

    /** A generation listed and watching, holding {@code expected} slices. */
    private Generation<EndpointSlice> synced(int id, int expected) throws Exception {
      CompletableFuture<Void> synced = new CompletableFuture<>();
      Generation<EndpointSlice> generation =
          new Generation<>(
              id,
              ServiceIndex.spec(kind, client, WatchSettings.of(List.of(), "mesh-managed=true")),
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
      await().atMost(Duration.ofSeconds(10)).until(() -> generation.objects().size() == expected);
      return generation;
    }

    @Test
    void everyServiceOfEitherGenerationIsRecomputedAsOneBatch() throws Exception {
      apply(slice("web-a", "web", "10.0.0.1"));
      apply(slice("api-a", "api", "10.0.0.2"));
      Generation<EndpointSlice> first = synced(1, 2);

      sink.replaced(null, first);

      assertThat(batches).hasSize(1);
      assertThat(batches.get(0).cause()).isEqualTo(Batch.Cause.RELIST);
      assertThat(batches.get(0).keys()).containsExactlyInAnyOrder(WEB, API);
      assertThat(cache.stateOf(API)).isPresent();

      // The first stops watching (an outage), its cache still served; meanwhile api lost its only
      // slice and db appeared.
      first.stop();
      client.resource(slice("api-a", "api", "10.0.0.2")).delete();
      apply(slice("db-a", "db", "10.0.0.3"));
      Generation<EndpointSlice> second = synced(2, 2);

      sink.replaced(first, second);

      assertThat(batches).hasSize(2);
      Batch relist = batches.get(1);
      assertThat(relist.cause()).isEqualTo(Batch.Cause.RELIST);
      // api is only in the first generation: recomputed so that it disappears in the same version.
      assertThat(relist.keys()).containsExactlyInAnyOrder(WEB, API, DB);
      assertThat(cache.stateOf(API)).isEmpty();
      assertThat(cache.stateOf(DB)).isPresent();
    }
  }
}
