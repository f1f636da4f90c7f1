package dev.routesync;

import static dev.routesync.testing.Slices.slice;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.routesync.api.v1.ListResponse;
import dev.routesync.config.AgentConfig;
import dev.routesync.state.StateSettings;
import dev.routesync.table.Endpoint;
import dev.routesync.table.RoutingTable;
import dev.routesync.table.ServiceEndpoints;
import dev.routesync.table.ServiceKey;
import dev.routesync.table.ServiceState;
import dev.routesync.table.TableTrust;
import dev.routesync.testing.AgentHarness;
import dev.routesync.testing.GrpcJavaClient;
import dev.routesync.testing.MockCluster;
import dev.routesync.testing.Slices;
import dev.routesync.testing.Slices.Pod;
import dev.routesync.testing.TcpProxy;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Static stability end to end: an agent that synced and stopped is restarted while the API server
 * is down. It serves its last table from the state file at once, flagged stale; when the server is
 * back the first list publishes the whole difference as one version, and no Service that exists on
 * both sides is ever seen empty or without its ports.
 */
class WarmStartTest {

  private static final Duration CONVERGE = Duration.ofSeconds(30);
  // The goal is the first answer within 1 s of start; a loaded CI machine gets a generous ceiling,
  // and the test prints the figure.
  private static final Duration FIRST_ANSWER_CEILING = Duration.ofSeconds(3);

  private static final List<String> KEPT = List.of("web", "api", "cart", "pay");

  @TempDir Path stateDir;

  @Test
  void aRestartWithTheApiServerDownServesTheLastTableAtOnceAndTheFirstListIsOneVersion()
      throws Exception {
    try (MockCluster cluster = new MockCluster();
        TcpProxy proxy = new TcpProxy(cluster.port())) {
      for (String name : List.of("web", "api", "cart", "pay", "gone")) {
        apply(cluster, service(name, 80));
      }
      cluster.apply(slice("shop", "web-a", "web", true, 8080, List.of(pod(1), pod(2))));
      cluster.apply(slice("shop", "api-a", "api", true, 8080, List.of(pod(3))));
      cluster.apply(slice("shop", "cart-a", "cart", true, 8080, List.of(pod(4))));
      cluster.apply(slice("shop", "pay-a", "pay", true, 8080, List.of(pod(5))));
      var goneSlice = slice("shop", "gone-a", "gone", true, 8080, List.of(pod(6)));
      cluster.apply(goneSlice);
      Path stateFile = stateDir.resolve("state").resolve("table.bin");
      UnaryOperator<AgentConfig> persist =
          config ->
              config.withState(new StateSettings(Optional.of(stateFile), Duration.ofMillis(100)));

      RoutingTable beforeStop;
      try (AgentHarness first = AgentHarness.startWith(proxy.url(), persist, 0).cutOnClose(proxy)) {
        await()
            .atMost(CONVERGE)
            .until(
                () ->
                    first.table().serviceCount() == 5
                        && first.table().services().stream()
                            .allMatch(s -> !s.servicePorts().isEmpty()));
        beforeStop = first.table();
        // Also warms grpc-java's classes in this JVM, so the figure below is the agent's.
        try (GrpcJavaClient grpc = new GrpcJavaClient(first.socket())) {
          assertThat(grpc.list("").getServicesCount()).isEqualTo(5);
        }
      } // the proxy is cut first: the API server is down from here on
      assertThat(Files.isRegularFile(stateFile)).isTrue();

      long startNanos = System.nanoTime();
      try (AgentHarness second = AgentHarness.launchWith(proxy.url(), persist).cutOnClose(proxy);
          GrpcJavaClient grpc = new GrpcJavaClient(second.socket())) {
        long listeningMillis = (System.nanoTime() - startNanos) / 1_000_000;
        ListResponse firstAnswer =
            await()
                .atMost(FIRST_ANSWER_CEILING)
                .pollInterval(Duration.ofMillis(5))
                .ignoreExceptions()
                .until(() -> grpc.list(""), response -> true);
        long firstAnswerMillis = (System.nanoTime() - startNanos) / 1_000_000;
        System.out.println(
            "warm start, API server down: start -> socket listening in "
                + listeningMillis
                + " ms, -> first List answered in "
                + firstAnswerMillis
                + " ms");

        RoutingTable restored = second.table();
        assertThat(firstAnswer.getServicesCount()).isEqualTo(5);
        assertThat(second.agent().freshness().level()).isEqualTo(TableTrust.Level.RESTORED);
        assertThat(second.agent().freshness().stale()).isTrue();
        assertThat(second.agent().readiness().isReady()).isTrue();
        assertThat(second.connected()).isFalse();
        // A graceful stop wrote the file last: the versions continue from it.
        assertThat(restored.version()).isEqualTo(beforeStop.version());
        assertThat(List.copyOf(restored.services())).isEqualTo(List.copyOf(beforeStop.services()));
        assertThat(second.counter("routesync.state.load.failures", "reason", "checksum")).isZero();

        // Meanwhile, on the server: pay scaled up, api's port changed, gone deleted.
        cluster.apply(slice("shop", "pay-a", "pay", true, 8080, List.of(pod(5), pod(7))));
        apply(cluster, service("api", 8081));
        cluster.delete(goneSlice);
        cluster.client().resource(service("gone", 80)).delete();

        proxy.restore(cluster.port());
        second.awaitInitialSync();

        assertThat(second.agent().freshness().level()).isEqualTo(TableTrust.Level.SYNCED);
        assertThat(second.agent().freshness().stale()).isFalse();
        List<RoutingTable> published = second.published();
        assertThat(published).as("the first list is one version").isNotEmpty();
        RoutingTable confirmed = published.get(0);
        assertThat(confirmed.version()).isEqualTo(restored.version() + 1);
        assertThat(confirmed.get(new ServiceKey("shop", "gone"))).isEmpty();
        assertThat(ips(confirmed, "pay")).containsExactly("10.0.0.5", "10.0.0.7");
        assertThat(confirmed.get(new ServiceKey("shop", "api")).orElseThrow().servicePorts())
            .singleElement()
            .satisfies(port -> assertThat(port.port()).isEqualTo(8081));

        // The confirmed version equals a fresh computation from the server's objects: an agent
        // that starts cold against the same server.
        try (AgentHarness fresh = AgentHarness.startWith(proxy.url(), config -> config, 0)) {
          await()
              .atMost(CONVERGE)
              .untilAsserted(() -> assertThat(states(fresh.table())).isEqualTo(states(confirmed)));
          assertThat(states(second.table())).isEqualTo(states(confirmed));
        }

        // Never empty, never without ports: the restored table and every version since.
        List<RoutingTable> observed = new ArrayList<>();
        observed.add(restored);
        observed.addAll(second.published());
        for (RoutingTable table : observed) {
          for (String name : KEPT) {
            assertThat(table.get(new ServiceKey("shop", name)))
                .as("shop/%s at version %d", name, table.version())
                .hasValueSatisfying(
                    s -> {
                      assertThat(s.endpoints()).isNotEmpty();
                      assertThat(s.servicePorts()).isNotEmpty();
                    });
          }
        }
        // Versions only grew.
        for (int i = 1; i < observed.size(); i++) {
          assertThat(observed.get(i).version()).isGreaterThan(observed.get(i - 1).version());
        }
      }
    }
  }

  private static Map<ServiceKey, ServiceState> states(RoutingTable table) {
    Map<ServiceKey, ServiceState> states = new TreeMap<>();
    for (ServiceEndpoints entry : table.services()) {
      states.put(entry.key(), new ServiceState(entry.endpoints(), entry.servicePorts()));
    }
    return states;
  }

  private static List<String> ips(RoutingTable table, String name) {
    return table.get(new ServiceKey("shop", name)).orElseThrow().endpoints().stream()
        .map(Endpoint::ip)
        .toList();
  }

  private static Service service(String name, int port) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace("shop")
        .withName(name)
        .addToLabels(Slices.MESH_LABEL, "true")
        .endMetadata()
        .withNewSpec()
        .addToSelector("app", name)
        .addNewPort()
        .withName("http")
        .withPort(port)
        .withTargetPort(new IntOrString("http"))
        .endPort()
        .endSpec()
        .build();
  }

  private static void apply(MockCluster cluster, Service service) {
    cluster.client().resource(service).createOr(NonDeletingOperation::update);
  }

  private static Pod pod(int n) {
    return Pod.ready("pod-" + n, "10.0.0." + n);
  }
}
