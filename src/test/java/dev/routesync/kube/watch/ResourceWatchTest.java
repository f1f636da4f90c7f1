package dev.routesync.kube.watch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.kube.WatchSettings;
import dev.routesync.observe.Metrics;
import dev.routesync.sync.VertxScheduler;
import dev.routesync.testing.MockCluster;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Context;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.junit5.Checkpoint;
import io.vertx.junit5.Timeout;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The generic watch on a kind other than EndpointSlices (Services, selected by label), against the
 * CRUD mock API server on a real Vert.x: what the next watches will reuse. The sink is called on
 * the sync context only: once per generation that replaces the served one, and for each event of
 * the served generation.
 */
@ExtendWith(VertxExtension.class)
@Timeout(value = 90, timeUnit = TimeUnit.SECONDS)
class ResourceWatchTest {

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private MockCluster cluster;
  private KubernetesClient client;
  private Vertx vertx;
  private Context syncContext;
  private ResourceWatch<Service> watch;

  @BeforeEach
  void startCluster(Vertx vertx) {
    this.vertx = vertx;
    this.syncContext = vertx.getOrCreateContext();
    cluster = new MockCluster();
    client = cluster.agentClient(vertx, syncContext);
  }

  @AfterEach
  void stop() throws Exception {
    cluster.close(); // first: see MockCluster#url
    if (watch != null) {
      Promise<Void> stopped = Promise.promise();
      syncContext.runOnContext(
          ignored -> {
            watch.stop();
            stopped.complete();
          });
      stopped.future().await(5, TimeUnit.SECONDS);
    }
    client.close();
  }

  private static WatchSettings settings() {
    return WatchSettings.of(List.of(), "mesh-managed=true");
  }

  private static Service service(String name, boolean meshManaged) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace("shop")
        .withName(name)
        .withLabels(meshManaged ? Map.of("mesh-managed", "true") : Map.of())
        .endMetadata()
        .withNewSpec()
        .addNewPort()
        .withName("http")
        .withPort(80)
        .endPort()
        .endSpec()
        .build();
  }

  private ResourceSpec<Service> meshServices() {
    return new ResourceSpec<>(
        "Service",
        List.of(),
        namespace ->
            (namespace == null
                    ? client.services().inAnyNamespace()
                    : client.services().inNamespace(namespace))
                .withLabel("mesh-managed", "true")
                .runnableInformer(0),
        Map.of());
  }

  private static List<String> names(Generation<Service> generation) {
    return generation.objects().stream().map(s -> s.getMetadata().getName()).sorted().toList();
  }

  private ResourceWatch<Service> watch(WatchSink<Service> sink) {
    watch =
        new ResourceWatch<>(
            meshServices(),
            settings().recovery(),
            sink,
            syncContext,
            new VertxScheduler(vertx),
            new Metrics(registry).watch("Service"),
            new Random(1),
            () -> true);
    return watch;
  }

  @Test
  void theFirstGenerationThenItsEventsReachTheSinkOnTheSyncContext(VertxTestContext testContext) {
    client.resource(service("web", true)).create();
    client.resource(service("private", false)).create();
    Checkpoint replaced = testContext.checkpoint();
    Checkpoint added = testContext.checkpoint();
    ResourceWatch<Service> services =
        watch(
            new WatchSink<>() {
              @Override
              public void replaced(Generation<Service> previous, Generation<Service> next) {
                testContext.verify(
                    () -> {
                      assertThat(Vertx.currentContext()).isSameAs(syncContext);
                      assertThat(previous).isNull();
                      assertThat(names(next)).containsExactly("web"); // selected on the server
                      replaced.flag();
                    });
                // Written once the first generation serves: it arrives as an event.
                vertx.executeBlocking(() -> client.resource(service("api", true)).create());
              }

              @Override
              public void event(WatchEvent<Service> event) {
                testContext.verify(
                    () -> {
                      assertThat(Vertx.currentContext()).isSameAs(syncContext);
                      if (event.object().getMetadata().getName().equals("api")) {
                        assertThat(event.type()).isEqualTo(WatchEvent.Type.ADDED);
                        added.flag();
                      }
                    });
              }
            });

    syncContext.runOnContext(ignored -> services.start());
    services.initialSync().onFailure(testContext::failNow);
  }

  @Test
  void aRelistHandsTheSinkTheNewGenerationWithTheOneItReplaces(VertxTestContext testContext) {
    client.resource(service("web", true)).create();
    Checkpoint relisted = testContext.checkpoint();
    ResourceWatch<Service> services =
        watch(
            new WatchSink<>() {
              @Override
              public void replaced(Generation<Service> previous, Generation<Service> next) {
                if (previous == null) {
                  return; // the initial list
                }
                testContext.verify(
                    () -> {
                      assertThat(Vertx.currentContext()).isSameAs(syncContext);
                      assertThat(previous.id()).isEqualTo(1);
                      assertThat(next.id()).isEqualTo(2);
                      assertThat(names(previous)).containsExactly("web"); // still readable
                      assertThat(names(next)).containsExactly("web");
                      assertThat(
                              registry
                                  .get("routesync.relists")
                                  .tag("reason", "resync")
                                  .counter()
                                  .count())
                          .isEqualTo(1.0);
                      relisted.flag();
                    });
              }

              @Override
              public void event(WatchEvent<Service> event) {}
            });

    syncContext.runOnContext(ignored -> services.start());
    services
        .initialSync()
        .onComplete(
            testContext.succeeding(
                ignored -> syncContext.runOnContext(v -> services.relist(RelistReason.RESYNC))));
  }

  @Test
  void aParkedWatchNeitherListsNorWatchesUntilItResumes() throws Exception {
    client.resource(service("web", true)).create();
    List<List<String>> replacedWith = new CopyOnWriteArrayList<>();
    List<String> heard = new CopyOnWriteArrayList<>();
    ResourceWatch<Service> services = watch(recording(replacedWith, heard));
    // A second watch of the same Services, never parked, witnesses that a change was sent. It is
    // listed and watching before the park, which closes the other's connection.
    List<String> witnessed = new CopyOnWriteArrayList<>();
    ResourceWatch<Service> witness =
        new ResourceWatch<>(
            meshServices(),
            settings().recovery(),
            recording(new CopyOnWriteArrayList<>(), witnessed),
            syncContext,
            new VertxScheduler(vertx),
            new Metrics(new SimpleMeterRegistry()).watch("Service"),
            new Random(2),
            () -> true);
    try {
      onSync(services::start);
      onSync(witness::start);
      services.initialSync().await(SYNCED.toSeconds(), TimeUnit.SECONDS);
      witness.initialSync().await(SYNCED.toSeconds(), TimeUnit.SECONDS);

      onSync(services::park);
      assertThat(services.disconnectedNanos()).isPositive(); // the table it feeds turns stale
      client.resource(service("api", true)).create();
      Awaitility.await().atMost(SYNCED).until(() -> witnessed.contains("api"));
      // What a resync timer or the silence watchdog would do: nothing, while parked.
      onSync(() -> services.relist(RelistReason.RESYNC));
      assertThat(heard).isEmpty();
      assertThat(replacedWith).containsExactly(List.of("web"));

      onSync(services::resume);
      Awaitility.await()
          .atMost(SYNCED)
          .untilAsserted(
              () ->
                  assertThat(replacedWith).containsExactly(List.of("web"), List.of("api", "web")));
      assertThat(registry.get("routesync.relists").tag("reason", "resumed").counter().count())
          .isEqualTo(1.0);
      Awaitility.await().atMost(SYNCED).until(() -> services.disconnectedNanos() == 0);
    } finally {
      onSync(witness::stop);
    }
  }

  /** A list and watch on the mock, on a loaded machine: a bound for a hang, not a speed. */
  private static final Duration SYNCED = Duration.ofSeconds(30);

  private WatchSink<Service> recording(List<List<String>> replacedWith, List<String> heard) {
    return new WatchSink<>() {
      @Override
      public void replaced(Generation<Service> previous, Generation<Service> next) {
        replacedWith.add(names(next));
      }

      @Override
      public void event(WatchEvent<Service> event) {
        heard.add(event.object().getMetadata().getName());
      }
    };
  }

  private void onSync(Runnable action) throws Exception {
    Promise<Void> done = Promise.promise();
    syncContext.runOnContext(
        ignored -> {
          action.run();
          done.complete();
        });
    done.future().await(5, TimeUnit.SECONDS);
  }
}
