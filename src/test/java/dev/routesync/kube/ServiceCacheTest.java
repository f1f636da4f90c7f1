package dev.routesync.kube;

import static dev.routesync.testing.Slices.slice;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.routesync.kube.translate.SliceTranslator;
import dev.routesync.kube.watch.Generation;
import dev.routesync.kube.watch.GenerationListener;
import dev.routesync.kube.watch.WatchEvent;
import dev.routesync.observe.Metrics;
import dev.routesync.table.Port;
import dev.routesync.table.ServiceKey;
import dev.routesync.testing.MockCluster;
import dev.routesync.testing.Slices.Pod;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The watch cache the reconciler reads, over a real informer on the CRUD mock API server: a Service
 * is recomputed on every change of any of its slices, but a malformed slice is counted once per
 * version of it, not once per recompute.
 */
class ServiceCacheTest {

  private static final Duration CONVERGE = Duration.ofSeconds(10);
  private static final ServiceKey WEB = new ServiceKey("shop", "web");

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final EndpointSliceKind kind = new EndpointSliceKind();
  private final ServiceCache<EndpointSlice> cache =
      new ServiceCache<>(
          kind,
          new SkipReporter(new Metrics(registry).skips(), System::nanoTime, 10, TimeUnit.SECONDS));
  private MockCluster cluster;
  private KubernetesClient client;
  private Generation<EndpointSlice> generation;

  @BeforeEach
  void startWatching() throws Exception {
    cluster = new MockCluster();
    client =
        new KubernetesClientBuilder()
            .withConfig(
                new ConfigBuilder(Config.empty())
                    .withMasterUrl(cluster.url())
                    .withRequestTimeout(5000)
                    .withConnectionTimeout(2000)
                    .build())
            .build();
    CompletableFuture<Void> synced = new CompletableFuture<>();
    generation =
        new Generation<>(
            1,
            ServiceIndex.spec(kind, client, WatchSettings.of(List.of(), "mesh-managed=true")),
            new GenerationListener<>() {
              @Override
              public void synced(Generation<EndpointSlice> generation) {
                synced.complete(null);
              }

              @Override
              public void failed(Generation<EndpointSlice> generation, Throwable error) {}

              @Override
              public void event(
                  Generation<EndpointSlice> generation, WatchEvent<EndpointSlice> event) {}

              @Override
              public void relistingInPlace(Generation<EndpointSlice> generation) {}
            },
            System::nanoTime);
    generation.start();
    synced.get(20, TimeUnit.SECONDS);
    cache.swap(generation);
  }

  @AfterEach
  void stop() throws Exception {
    cluster.close(); // first: see MockCluster#url
    generation.stop();
    client.close();
  }

  private static EndpointSlice good(String name, int pods) {
    List<Pod> list =
        java.util.stream.IntStream.rangeClosed(1, pods)
            .mapToObj(i -> Pod.ready(name + "-" + i, "10.0.0." + i))
            .toList();
    return slice("shop", name, "web", true, 8080, list);
  }

  private static EndpointSlice badIp(String name, String ip) {
    return slice("shop", name, "web", true, 8080, List.of(Pod.ready(name + "-1", ip)));
  }

  /** Writes the slice and waits until the informer's cache holds the version written. */
  private void apply(EndpointSlice slice) {
    String version =
        client
            .resource(slice)
            .createOr(NonDeletingOperation::update)
            .getMetadata()
            .getResourceVersion();
    await()
        .atMost(CONVERGE)
        .until(
            () ->
                ServiceIndex.objectsOf(generation, new ServiceKey("shop", service(slice))).stream()
                    .anyMatch(
                        s ->
                            s.name().equals(slice.getMetadata().getName())
                                && version.equals(s.resourceVersion())));
  }

  private void delete(EndpointSlice slice) {
    client.resource(slice).delete();
    await()
        .atMost(CONVERGE)
        .until(
            () ->
                ServiceIndex.objectsOf(generation, new ServiceKey("shop", service(slice))).stream()
                    .noneMatch(s -> s.name().equals(slice.getMetadata().getName())));
  }

  private static String service(EndpointSlice slice) {
    return slice.getMetadata().getLabels().get(SliceTranslator.SERVICE_NAME_LABEL);
  }

  private double skipped(String reason) {
    Counter counter = registry.find("routesync.objects.skipped").tag("reason", reason).counter();
    return counter == null ? 0 : counter.count();
  }

  @Test
  void aMalformedSliceIsCountedOncePerVersionHoweverOftenItsServiceIsRecomputed() {
    apply(badIp("web-bad", "10.0.0.300"));
    apply(good("web-a", 1));

    // A sibling slice changes five times: the Service is recomputed each time, the bad slice not.
    for (int pods = 2; pods <= 6; pods++) {
      apply(good("web-a", pods));
      assertThat(cache.stateOf(WEB).orElseThrow().endpoints()).hasSize(pods);
    }
    assertThat(skipped("invalid_ip")).isEqualTo(1.0);

    // A new version of the bad slice, still malformed, is counted again; once.
    apply(badIp("web-bad", "10.0.0.301"));
    cache.stateOf(WEB);
    cache.stateOf(WEB);
    assertThat(skipped("invalid_ip")).isEqualTo(2.0);
    assertThat(cache.countedSkips()).isEqualTo(1);
  }

  @Test
  void forgetsCountedVersionsOnceTheObjectsAreFixedOrDeleted() {
    apply(good("web-a", 1));
    for (int i = 1; i <= 5; i++) {
      apply(badIp("web-bad-" + i, "10.0.0.30" + i));
    }
    cache.stateOf(WEB);
    assertThat(skipped("invalid_ip")).isEqualTo(5.0);
    assertThat(cache.countedSkips()).isEqualTo(5);

    apply(good("web-bad-1", 2)); // fixed
    delete(badIp("web-bad-2", "10.0.0.302"));
    cache.stateOf(WEB);
    assertThat(cache.countedSkips()).isEqualTo(3);
    assertThat(skipped("invalid_ip")).isEqualTo(5.0);

    // The Service goes away with all its objects: nothing is left of it.
    for (String name : List.of("web-a", "web-bad-1", "web-bad-3", "web-bad-4", "web-bad-5")) {
      delete(good(name, 1));
    }
    assertThat(cache.stateOf(WEB)).isEmpty();
    assertThat(cache.countedSkips()).isZero();

    // Recreated with the same name, it is a new object version: counted again.
    apply(badIp("web-bad-3", "10.0.0.303"));
    cache.stateOf(WEB);
    assertThat(skipped("invalid_ip")).isEqualTo(6.0);
  }

  @Test
  void aServicesStateCarriesItsDeclaredPortsButOnlySlicesMakeIt() {
    ServiceKey other = new ServiceKey("shop", "no-slices");
    List<Port> http = List.of(new Port("http", 80, "TCP"));
    ServiceCache<EndpointSlice> withPorts =
        new ServiceCache<>(
            kind,
            new SkipReporter(new Metrics(registry).skips(), System::nanoTime, 10, TimeUnit.SECONDS),
            key -> http);
    withPorts.swap(generation);
    apply(good("web-a", 2));

    assertThat(withPorts.stateOf(WEB).orElseThrow().servicePorts()).isEqualTo(http);
    assertThat(withPorts.stateOf(WEB).orElseThrow().endpoints()).hasSize(2);
    assertThat(withPorts.stateOf(other)).as("declared ports alone make no entry").isEmpty();
  }
}
