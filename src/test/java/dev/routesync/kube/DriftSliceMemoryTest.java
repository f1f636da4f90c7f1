package dev.routesync.kube;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.drift.DriftDetector;
import dev.routesync.drift.DriftObserver;
import dev.routesync.drift.NodeSlice;
import dev.routesync.kube.watch.Generation;
import dev.routesync.kube.watch.GenerationListener;
import dev.routesync.kube.watch.WatchEvent;
import dev.routesync.observe.Metrics;
import dev.routesync.rules.ControllerSlices;
import dev.routesync.rules.PortSearch;
import dev.routesync.sync.FakeScheduler;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPortBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.openjdk.jol.info.GraphLayout;

/**
 * What the drift detector adds to the agent's heap per EndpointSlice of the cluster (issue 12: a
 * 1,000,000-endpoint table in 128 MiB, 40,000 slices of 25 endpoints), measured with JOL: the
 * informer's store with the detector's compact forms, plus the detector, against the store alone.
 * Before, both held every decoded slice (about 22 KB of a 25-endpoint slice, 900 MB at 40,000); now
 * a slice costs the detector a record, a count, and the uids of this node's ready pods only.
 *
 * <p>The slices are decoded from JSON, as the informer decodes them (every string its own), and put
 * into the store of a generation that is never started, as its informer would put them.
 */
class DriftSliceMemoryTest {

  /**
   * The detector's bytes per slice, at most: 330 measured here (a record, its Service's index
   * entry, and this node's uids: 1 endpoint in 40), against about 22,000 when it kept decoded
   * slices, and 353 while its store keyed each slice by a (namespace, name) record.
   */
  static final long BOUND_PER_SLICE = 340;

  static final int SLICES = 200;
  static final int ENDPOINTS = 25;
  static final int NODES = 40;
  static final String NODE = "node-0";

  static {
    // JOL lays out records (StoredObject, the detector's) only with this, without its agent.
    System.setProperty("jol.magicFieldOffset", "true");
  }

  private final KubernetesClient client =
      new io.fabric8.kubernetes.client.KubernetesClientBuilder()
          .withConfig(
              new io.fabric8.kubernetes.client.ConfigBuilder()
                  .withMasterUrl("https://127.0.0.1:1")
                  .build())
          .build();

  @AfterEach
  void stop() {
    client.close();
  }

  @Test
  void theDetectorKeepsNoDecodedSliceAndAFewHundredBytesPerSliceAtMost() {
    EndpointSliceKind kind = new EndpointSliceKind();
    DriftDetector detector = detector();
    CompactForms<EndpointSlice, NodeSlice> forms = new CompactForms<>(detector::nodeSliceOf);
    Generation<EndpointSlice> alone =
        generation(ServiceIndex.spec(kind, client, settings(), cache(), null));
    Generation<EndpointSlice> withForms =
        generation(ServiceIndex.spec(kind, client, settings(), cache(), forms));
    fill(alone);
    fill(withForms);
    detector.slices(forms::handOver).replaced(null, withForms);

    GraphLayout storeAlone = GraphLayout.parseInstance(ServiceIndex.storeOf(alone, null));
    GraphLayout storeAndDetector =
        GraphLayout.parseInstance(ServiceIndex.storeOf(withForms, null), detector);
    long perSlice = (storeAndDetector.totalSize() - storeAlone.totalSize()) / SLICES;
    System.out.printf(
        "store alone %d B/slice; store + drift detector %d B/slice; the detector adds %d B/slice"
            + " (%.1f MiB at 40,000 slices)%n",
        storeAlone.totalSize() / SLICES,
        storeAndDetector.totalSize() / SLICES,
        perSlice,
        perSlice * 40_000 / 1048576.0);

    assertThat(storeAndDetector.getClasses())
        .as("no decoded slice, endpoint or reference is kept")
        .doesNotContain(
            EndpointSlice.class,
            io.fabric8.kubernetes.api.model.discovery.v1.Endpoint.class,
            io.fabric8.kubernetes.api.model.ObjectReference.class);
    assertThat(perSlice).isLessThan(BOUND_PER_SLICE);
    // This node's ready pods, and only they, are kept by uid: 1 endpoint in 40 runs here. (Read
    // again: the store keeps the records it handed over, the very ones the detector holds.)
    List<NodeSlice> kept = forms.handOver(withForms);
    assertThat(kept).hasSize(SLICES);
    assertThat(kept.stream().mapToInt(k -> k.readyHere().size()).sum())
        .isEqualTo(SLICES * ENDPOINTS / NODES);
    assertThat(kept.stream().mapToInt(NodeSlice::readyPods).sum()).isEqualTo(SLICES * ENDPOINTS);
  }

  @Test
  void theStoreMakesFormsUntilTheyAreHandedOverThenNoMore() {
    AtomicInteger made = new AtomicInteger();
    DriftDetector detector = detector();
    CompactForms<EndpointSlice, NodeSlice> forms =
        new CompactForms<>(
            slice -> {
              made.incrementAndGet();
              return detector.nodeSliceOf(slice);
            });
    Generation<EndpointSlice> generation =
        generation(ServiceIndex.spec(new EndpointSliceKind(), client, settings(), cache(), forms));
    fill(generation);
    assertThat(made.get()).isEqualTo(SLICES);
    assertThat(forms.handOver(generation)).hasSize(SLICES);

    // After the hand-over the detector makes the forms of the events' slices itself.
    var store = generation.itemStore(null);
    EndpointSlice changed = slice(0);
    changed.getMetadata().setResourceVersion("5000");
    store.put(store.getKey(changed), changed);
    assertThat(made.get()).isEqualTo(SLICES);
    // fabric8 still gets a metadata-only skeleton back.
    EndpointSlice back = store.get(store.getKey(changed));
    assertThat(back.getMetadata().getResourceVersion()).isEqualTo("5000");
    assertThat(back.getEndpoints()).isNullOrEmpty();
  }

  /** Each slice decoded from JSON, as the informer hands it to its store: every string its own. */
  static void fill(Generation<EndpointSlice> generation) {
    var store = generation.itemStore(null);
    for (int s = 0; s < SLICES; s++) {
      EndpointSlice decoded =
          io.fabric8.kubernetes.client.utils.Serialization.unmarshal(
              io.fabric8.kubernetes.client.utils.Serialization.asJson(slice(s)),
              EndpointSlice.class);
      decoded.getMetadata().setResourceVersion(String.valueOf(1000 + s));
      store.put(store.getKey(decoded), decoded);
    }
  }

  static ServiceCache<EndpointSlice> cache() {
    return new ServiceCache<>(
        new EndpointSliceKind(),
        new SkipReporter(
            new Metrics(new SimpleMeterRegistry()).skips(),
            System::nanoTime,
            10,
            TimeUnit.SECONDS));
  }

  /** A generation never started: its store is filled by hand, as its informer would. */
  static Generation<EndpointSlice> generation(
      dev.routesync.kube.watch.ResourceSpec<EndpointSlice> spec) {
    return new Generation<>(
        1,
        spec,
        new GenerationListener<>() {
          @Override
          public void synced(Generation<EndpointSlice> generation) {}

          @Override
          public void failed(Generation<EndpointSlice> generation, Throwable error) {}

          @Override
          public void event(
              Generation<EndpointSlice> generation, WatchEvent<EndpointSlice> event) {}

          @Override
          public void relistingInPlace(Generation<EndpointSlice> generation) {}
        },
        System::nanoTime);
  }

  static WatchSettings settings() {
    return WatchSettings.of(List.of(), "mesh-managed=true");
  }

  static DriftDetector detector() {
    return new DriftDetector(
        NODE,
        Duration.ofSeconds(30),
        Duration.ofMillis(50),
        new FakeScheduler(),
        Clock.systemUTC(),
        PortSearch.CONTAINERS_AND_SIDECARS,
        DriftObserver.NONE,
        (entry, pod, service) -> {});
  }

  /** A controller-written slice of 25 ready pods spread over 40 nodes: ~1 in 40 on this node. */
  static EndpointSlice slice(int s) {
    return new EndpointSliceBuilder()
        .withNewMetadata()
        .withNamespace("shop")
        .withName("svc-" + s + "-x7k2p")
        .withLabels(
            Map.of(
                ControllerSlices.SERVICE_NAME_LABEL,
                "svc-" + s,
                ControllerSlices.MANAGED_BY_LABEL,
                ControllerSlices.CONTROLLER,
                "mesh-managed",
                "true"))
        .addToAnnotations(
            "endpoints.kubernetes.io/last-change-trigger-time", "2026-12-01T10:00:00Z")
        .endMetadata()
        .withAddressType("IPv4")
        .withPorts(
            new EndpointPortBuilder().withName("http").withPort(8080).withProtocol("TCP").build())
        .withEndpoints(
            IntStream.range(0, ENDPOINTS)
                .mapToObj(
                    e ->
                        new EndpointBuilder()
                            .withAddresses("10." + (s / 250) + "." + (s % 250) + "." + (e + 1))
                            .withNodeName("node-" + ((s * ENDPOINTS + e) % NODES))
                            .withZone("zone-" + (e % 3))
                            .withTargetRef(
                                new ObjectReferenceBuilder()
                                    .withKind("Pod")
                                    .withNamespace("shop")
                                    .withName("svc-" + s + "-7d9f8b6c5-" + e)
                                    .withUid(
                                        String.format("%08x-0000-4000-8000-%012x", s, (long) e))
                                    .build())
                            .withNewConditions()
                            .withReady(true)
                            .withServing(true)
                            .withTerminating(false)
                            .endConditions()
                            .build())
                .toList())
        .build();
  }
}
