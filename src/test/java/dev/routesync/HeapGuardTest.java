package dev.routesync;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.kube.WatchSettings;
import dev.routesync.kube.events.EventRecorder;
import dev.routesync.kube.events.EventRecorderSettings;
import dev.routesync.kube.events.Reporter;
import dev.routesync.kube.watch.Generation;
import dev.routesync.kube.watch.ResourceSpec;
import dev.routesync.kube.watch.ResourceWatch;
import dev.routesync.kube.watch.WatchEvent;
import dev.routesync.kube.watch.WatchSink;
import dev.routesync.observe.HeapBudget;
import dev.routesync.observe.Metrics;
import dev.routesync.serve.Readiness;
import dev.routesync.sync.VertxScheduler;
import dev.routesync.testing.FullCollections;
import dev.routesync.testing.MockCluster;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.events.v1.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A heap budget this test JVM has certainly spent (a few bytes of its old generation), on a real
 * watch against the CRUD mock: the guard parks the watch, says why on readiness, in the metrics and
 * in a Warning Event on the agent's Node, and lists again once its pause is over.
 */
class HeapGuardTest {

  private static final Duration WAIT = Duration.ofSeconds(20);

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final Readiness readiness = new Readiness();
  private MockCluster cluster;
  private KubernetesClient client;
  private Vertx vertx;
  private Context syncContext;
  private ResourceWatch<Service> watch;
  private HeapGuard guard;

  @BeforeEach
  void start() {
    vertx = Vertx.vertx();
    syncContext = vertx.getOrCreateContext();
    cluster = new MockCluster();
    client = cluster.agentClient(vertx, syncContext);
    client
        .resource(
            new ServiceBuilder()
                .withNewMetadata()
                .withNamespace("shop")
                .withName("web")
                .withLabels(Map.of("mesh-managed", "true"))
                .endMetadata()
                .build())
        .create();
    watch =
        new ResourceWatch<>(
            new ResourceSpec<>(
                "Service",
                List.of(),
                namespace ->
                    client
                        .services()
                        .inAnyNamespace()
                        .withLabel("mesh-managed", "true")
                        .runnableInformer(0),
                Map.of()),
            WatchSettings.of(List.of(), "mesh-managed=true").recovery(),
            new WatchSink<>() {
              @Override
              public void replaced(Generation<Service> previous, Generation<Service> next) {}

              @Override
              public void event(WatchEvent<Service> event) {}
            },
            syncContext,
            new VertxScheduler(vertx),
            new Metrics(registry).watch("Service"),
            new Random(1),
            () -> true);
  }

  @AfterEach
  void stop() throws Exception {
    if (guard != null) {
      guard.stop().await(5, TimeUnit.SECONDS);
    }
    syncContext.runOnContext(ignored -> watch.stop());
    cluster.close();
    client.close();
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  private HeapGuard guard(double share, Duration resumeAfter) {
    Metrics metrics = new Metrics(registry);
    return new HeapGuard(
        HeapBudget.of(share).orElseThrow(),
        vertx,
        syncContext,
        List.of(watch),
        readiness,
        metrics,
        () ->
            Optional.of(
                EventRecorder.start(
                    cluster.client(),
                    Reporter.onNode(Reporter.AGENT, "node-a"),
                    EventRecorderSettings.defaults(),
                    new VertxScheduler(vertx),
                    Clock.systemUTC(),
                    metrics.kubernetesEvents())),
        "node-a",
        resumeAfter);
  }

  private double gauge(String name) {
    return registry.get(name).gauge().value();
  }

  @Test
  void aSpentBudgetParksTheWatchesSaysWhyAndTheyListAgainLater() throws Exception {
    syncContext.runOnContext(ignored -> watch.start());
    watch.initialSync().await(10, TimeUnit.SECONDS);
    readiness.initialSyncDone();
    readiness.socketListening(true);
    guard = guard(1e-9, Duration.ofSeconds(2));
    guard.start().await(5, TimeUnit.SECONDS);

    FullCollections.until(() -> guard.parked(), WAIT);
    assertThat(watch.disconnectedNanos()).isPositive();
    assertThat(gauge("routesync.watches.parked")).isEqualTo(1.0);
    assertThat(gauge("routesync.heap.live")).isGreaterThanOrEqualTo(gauge("routesync.heap.budget"));
    assertThat(registry.get("routesync.heap.budget.spent").counter().count()).isPositive();
    // A served table stays ready (static stability), and says why its watches are parked.
    assertThat(readiness.isReady()).isTrue();
    assertThat(readiness.warnings())
        .singleElement()
        .asString()
        .contains("still live after a full collection", "-Xmx", "memory limit");
    Awaitility.await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              List<Event> events =
                  cluster.client().events().v1().events().inNamespace("default").list().getItems();
              assertThat(events).singleElement().satisfies(HeapGuardTest::isAboutTheNode);
            });

    // No more collections are forced: the pause ends and the watch lists again.
    Awaitility.await()
        .atMost(WAIT)
        .until(
            () ->
                registry.get("routesync.relists").tag("reason", "resumed").counter().count() >= 1);
  }

  @Test
  void anAgentWithoutATableSaysItsWatchesAreParkedInItsReason() throws Exception {
    readiness.socketListening(true);
    guard = guard(1e-9, Duration.ofMinutes(10));
    guard.start().await(5, TimeUnit.SECONDS);
    FullCollections.until(() -> guard.parked(), WAIT);
    syncContext.runOnContext(ignored -> watch.start()); // parked: it must not list
    assertThat(readiness.isReady()).isFalse();
    assertThat(readiness.reason())
        .startsWith("initial sync from the API server not done: watches held back: ")
        .contains("-Xmx");
    assertThat(watch.initialSync().isComplete()).isFalse();
  }

  @Test
  void aBudgetThisJvmHasNotSpentParksNothing() throws Exception {
    syncContext.runOnContext(ignored -> watch.start());
    watch.initialSync().await(10, TimeUnit.SECONDS);
    guard = guard(1.0, Duration.ofSeconds(1));
    guard.start().await(5, TimeUnit.SECONDS);
    HeapBudget witness = HeapBudget.of(1e-9).orElseThrow();
    java.util.concurrent.atomic.AtomicBoolean collected =
        new java.util.concurrent.atomic.AtomicBoolean();
    witness.arm(spent -> collected.set(true));
    try {
      FullCollections.until(() -> collected.get(), WAIT);
    } finally {
      witness.disarm();
    }
    assertThat(guard.parked()).isFalse();
    assertThat(gauge("routesync.watches.parked")).isZero();
    assertThat(watch.disconnectedNanos()).isZero();
  }

  private static void isAboutTheNode(Event event) {
    assertThat(event.getType()).isEqualTo("Warning");
    assertThat(event.getReason()).isEqualTo("HeapBudgetSpent");
    assertThat(event.getRegarding().getKind()).isEqualTo("Node");
    assertThat(event.getRegarding().getName()).isEqualTo("node-a");
    assertThat(event.getReportingController()).isEqualTo(Reporter.AGENT);
    assertThat(event.getNote()).contains("parked", "-Xmx");
  }
}
