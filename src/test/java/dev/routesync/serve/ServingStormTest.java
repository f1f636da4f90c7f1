package dev.routesync.serve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.api.v1.WatchEvent;
import dev.routesync.api.v1.WatchRequest;
import dev.routesync.testing.ForkedAgent;
import dev.routesync.testing.GrpcJavaClient;
import dev.routesync.testing.Kubeconfigs;
import dev.routesync.testing.MockCluster;
import dev.routesync.testing.Slices;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.grpc.stub.StreamObserver;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.SocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A node's sidecars all at once, against the agent as the image runs it (its JVM flags: a 96 MiB
 * heap, {@code ExitOnOutOfMemoryError}), in a process of its own, fed by a mock API server in this
 * JVM: every one opens an all-namespaces Watch, then every one asks {@code GET /v1/services}. The
 * agent must stay up and serve each of them the whole table. Before the Watch streams shared their
 * snapshot under a byte budget, and before large lists were streamed, either storm ended the
 * process with {@code OutOfMemoryError} at a tenth of the endpoints Kubernetes supports.
 *
 * <p>{@code -Dstorm.endpoints=150000 -Dstorm.clients=200} runs it at the size Kubernetes supports.
 */
class ServingStormTest {

  private static final int ENDPOINTS = Integer.getInteger("storm.endpoints", 20_000);
  private static final int CLIENTS = Integer.getInteger("storm.clients", 100);
  private static final int PER_SERVICE = 1_000;
  private static final int PER_SLICE = 100;
  private static final int SERVICES = ENDPOINTS / PER_SERVICE;
  private static final Duration STORM_TIMEOUT = Duration.ofMinutes(4);

  private MockCluster cluster;
  private ForkedAgent agent;
  private Path dir;

  @BeforeEach
  void start() throws Exception {
    cluster = new MockCluster();
    List<HasMetadata> objects = new ArrayList<>();
    for (int s = 0; s < SERVICES; s++) {
      String name = "svc-" + s;
      objects.add(
          new ServiceBuilder()
              .withNewMetadata()
              .withNamespace("shop")
              .withName(name)
              .withLabels(Map.of(Slices.MESH_LABEL, "true"))
              .endMetadata()
              .withNewSpec()
              .addNewPort()
              .withName("http")
              .withPort(80)
              .endPort()
              .endSpec()
              .build());
      for (int k = 0; k < PER_SERVICE / PER_SLICE; k++) {
        List<Slices.Pod> pods = new ArrayList<>();
        for (int e = 0; e < PER_SLICE; e++) {
          int n = (s * PER_SERVICE) + k * PER_SLICE + e;
          pods.add(
              Slices.Pod.ready(
                  name + "-" + k + "-" + e,
                  "10." + (n >> 16) + "." + ((n >> 8) & 255) + "." + (n & 255)));
        }
        objects.add(Slices.slice("shop", name + "-" + k, name, true, 8080, pods));
      }
    }
    cluster.createAll(objects);
    dir = Files.createTempDirectory(Path.of("/tmp"), "storm");
    Path kubeconfig = dir.resolve("kubeconfig");
    Files.writeString(kubeconfig, Kubeconfigs.withToken("mock", cluster.url(), "token"));
    // The shortest body timeout: a list that waits its turn longer must still be answered.
    agent = ForkedAgent.agent(kubeconfig, "--drift-detector=false", "--body-timeout=1s");
  }

  @AfterEach
  void stop() throws Exception {
    if (agent != null) {
      System.out.printf(
          "serving storm at %,d endpoints, %d clients: alive=%s peak heap=%d MiB peak RSS=%d KiB"
              + " longest GC pause=%.1f ms oom=%s%n",
          ENDPOINTS,
          CLIENTS,
          agent.alive(),
          agent.peakHeapMib(),
          agent.peakRssKib(),
          agent.longestGcPauseMillis(),
          agent.log().contains("java.lang.OutOfMemoryError"));
      agent.close();
    }
    cluster.close();
    Files.deleteIfExists(dir.resolve("kubeconfig"));
    Files.deleteIfExists(dir);
  }

  @Test
  void everySidecarWatchingEverythingAtOnceGetsTheWholeTableAndTheAgentStaysUp() throws Exception {
    List<FirstEvent> firsts = new ArrayList<>();
    try (GrpcJavaClient grpc = new GrpcJavaClient(agent.socket())) {
      for (int i = 0; i < CLIENTS; i++) {
        FirstEvent first = new FirstEvent();
        grpc.watch(WatchRequest.getDefaultInstance(), first, STORM_TIMEOUT);
        firsts.add(first);
      }
      Awaitility.await()
          .atMost(STORM_TIMEOUT)
          .pollInterval(Duration.ofMillis(500))
          .until(() -> !agent.alive() || firsts.stream().allMatch(f -> f.services.get() != -1));
      assertThat(agent.alive()).as("the agent is alive:\n%s", tail(agent.log())).isTrue();
      assertThat(firsts).allSatisfy(f -> assertThat(f.services.get()).isEqualTo(SERVICES));
      assertThat(agent.probe("/readyz")).isEqualTo(200);
    }
  }

  @Test
  void everySidecarListingEverythingAtOnceGetsTheWholeTableAndTheAgentStaysUp() throws Exception {
    Vertx vertx = Vertx.vertx();
    try {
      List<Future<Long>> answers = new ArrayList<>();
      AtomicInteger refused = new AtomicInteger();
      for (int i = 0; i < CLIENTS; i++) {
        // A connection each: every sidecar has its own.
        HttpClient own =
            vertx.createHttpClient(
                new HttpClientOptions().setIdleTimeout(120), new PoolOptions().setHttp1MaxSize(1));
        answers.add(bodyBytes(own, refused));
      }
      try {
        Future.join(answers).await(STORM_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      } catch (Exception e) {
        throw new AssertionError(
            "not every list was answered: "
                + outcomes(answers)
                + "; the agent's connection meters:\n"
                + connectionMeters()
                + "\nits log:\n"
                + tail(agent.log()),
            e);
      }
      assertThat(agent.alive()).as("the agent is alive:\n%s", tail(agent.log())).isTrue();
      assertThat(refused).hasValue(0);
      long first = answers.get(0).result();
      // Each is the whole table: the same length (one version, no churn), every Service in it.
      assertThat(answers).allSatisfy(a -> assertThat(a.result()).isEqualTo(first));
      assertThat(first).isGreaterThan(ENDPOINTS * 50L);
      assertThat(agent.probe("/readyz")).isEqualTo(200);
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }

  private Future<Long> bodyBytes(HttpClient http, AtomicInteger refused) {
    AtomicLong bytes = new AtomicLong();
    return http.request(
            new RequestOptions()
                .setMethod(HttpMethod.GET)
                .setServer(SocketAddress.domainSocketAddress(agent.socket().toString()))
                .setHost("localhost")
                .setURI("/v1/services")
                .setTimeout(STORM_TIMEOUT.toMillis()))
        .compose(request -> request.send())
        .compose(
            response -> {
              if (response.statusCode() != 200) {
                refused.incrementAndGet();
              }
              response.handler(chunk -> bytes.addAndGet(chunk.length()));
              return response.end().map(ignored -> bytes.get());
            })
        .recover(
            failed ->
                Future.failedFuture(
                    new IllegalStateException(
                        failed + (bytes.get() == 0 ? " before any byte" : " mid-answer"), failed)));
  }

  /** How many answers completed, failed after some bytes, and failed before any. */
  private static String outcomes(List<Future<Long>> answers) {
    long done = answers.stream().filter(Future::succeeded).count();
    List<String> failures =
        answers.stream()
            .filter(Future::failed)
            .map(a -> a.cause().getClass().getSimpleName() + ": " + a.cause().getMessage())
            .distinct()
            .toList();
    return done + " answered, " + (answers.size() - done) + " failed " + failures;
  }

  private String connectionMeters() {
    try {
      String metrics =
          dev.routesync.testing.Http1.get("http://127.0.0.1:" + agent.adminPort() + "/metrics")
              .body();
      return metrics
          .lines()
          .filter(l -> l.startsWith("routesync_connections") || l.startsWith("routesync_uid"))
          .collect(java.util.stream.Collectors.joining("\n"));
    } catch (Exception e) {
      return "(no metrics: " + e + ")";
    }
  }

  private static String tail(String log) {
    return log.length() > 4_000 ? log.substring(log.length() - 4_000) : log;
  }

  /** How many Services the first event held (-1 until it came); the rest is dropped. */
  private static final class FirstEvent implements StreamObserver<WatchEvent> {
    final AtomicInteger services = new AtomicInteger(-1);

    @Override
    public void onNext(WatchEvent event) {
      services.compareAndSet(-1, event.getUpsertedCount());
    }

    @Override
    public void onError(Throwable t) {
      services.compareAndSet(-1, -2); // never came: fails the count below
    }

    @Override
    public void onCompleted() {}
  }
}
