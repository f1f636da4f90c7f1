package dev.routesync.xds;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.testing.AgentHarness;
import dev.routesync.testing.MockCluster;
import dev.routesync.testing.Slices;
import dev.routesync.xds.GrpcJsXdsClient.Result;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServicePortBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPortBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A second, independent xDS client: Node's {@code @grpc/grpc-js} 1.14.7 with the unmodified {@code
 * xds:///} resolver of {@code @grpc/grpc-js-xds} 1.14.1 (pinned in {@code
 * interop/grpc-js/package-lock.json}), configured by nothing but a bootstrap file that points at
 * the agent's Unix socket. It calls {@code xds:///cart.shop:8080}, whose endpoints are real
 * grpc-java servers on 127.0.0.1 that the mock API server's EndpointSlice lists, and follows the
 * agent's table as the slice and the Service change.
 *
 * <p>Needs {@code npm ci --prefix interop/grpc-js}. Without it the test is skipped, loudly; with
 * {@code ROUTESYNC_REQUIRE_GRPC_JS=true} (CI) a client that cannot run fails it.
 */
class GrpcJsXdsInteropTest {

  private static final String TARGET = "xds:///cart.shop:8080";
  private static final String PORT_NAME = "grpc";
  private static final Duration CALL_DEADLINE = Duration.ofSeconds(1);

  /** Well beyond what the test needs (~5 s), short enough that a stray script ends soon. */
  private static final Duration CLIENT_RUN = Duration.ofSeconds(40);

  /** Node's start (loading grpc-js-xds's protos) on a loaded 2-core machine, plus xDS. */
  private static final Duration FIRST_ANSWER = Duration.ofSeconds(20);

  /** A slice change: the agent's debounce (20 ms here), one EDS push, the client's new picker. */
  private static final Duration FOLLOWS = Duration.ofSeconds(10);

  @TempDir Path dir;

  private MockCluster cluster;
  private IdBackend backendA;
  private IdBackend backendB;
  private AgentHarness agent;
  private GrpcJsXdsClient client;

  @BeforeEach
  void requireTheClient() {
    GrpcJsXdsClient.assumeRunnable();
  }

  @AfterEach
  void close() throws Exception {
    // The subprocess first: destroyed forcibly if it does not stop within 3 s of its stdin closing.
    if (client != null) {
      client.close();
    }
    if (cluster != null) {
      cluster.close();
    }
    if (agent != null) {
      agent.close();
    }
    if (backendA != null) {
      backendA.close();
    }
    if (backendB != null) {
      backendB.close();
    }
  }

  @Test
  void grpcJsRoutesThroughTheAgentAndFollowsTheSliceAndTheServiceDeletion() throws Exception {
    Path bootstrap = dir.resolve("bootstrap.json");
    // Node loads grpc-js-xds (it parses Envoy's protos: seconds) while the rest starts.
    client = GrpcJsXdsClient.start(bootstrap, TARGET, IdBackend.METHOD, CALL_DEADLINE, CLIENT_RUN);
    cluster = new MockCluster();
    backendA = new IdBackend("backend-a");
    backendB = new IdBackend("backend-b");
    Service service = service();
    cluster.apply(service);
    cluster.apply(slice(backendA));
    agent = AgentHarness.start(cluster.url());
    Awaitility.await("cart in the table with its Service's port")
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                agent
                    .service("shop", "cart")
                    .filter(cart -> !cart.servicePorts().isEmpty() && !cart.endpoints().isEmpty())
                    .isPresent());

    writeBootstrap(bootstrap, agent.socket());
    long started = System.nanoTime();
    client.go();

    // 1. The first answers come from A, the slice's only endpoint.
    awaitLatest("a call answered by backend-a", FIRST_ANSWER, r -> r.answeredBy("backend-a"));
    long firstMs = (System.nanoTime() - started) / 1_000_000;
    assertThat(client.results())
        .as("grpc-js sees only A, or fails while it starts; never B")
        .noneMatch(r -> r.answeredBy("backend-b"));

    // 2. A's pod is replaced by B's (a named targetPort resolves to B's own port): calls follow.
    int beforeSwap = client.results().size();
    long swapped = System.nanoTime();
    cluster.apply(slice(backendB));
    awaitLatest("calls moved to backend-b", FOLLOWS, r -> r.answeredBy("backend-b"));
    long followedMs = (System.nanoTime() - swapped) / 1_000_000;
    int firstB = indexOfFirst(beforeSwap, r -> r.answeredBy("backend-b"));
    awaitCount(firstB + 10);
    assertThat(client.results().subList(firstB, firstB + 10))
        .as("once on B, calls stay on B (A is gone from the assignment)")
        .allMatch(r -> r.answeredBy("backend-b"));
    // The swap is one slice update: the agent never publishes an assignment without endpoints in
    // between. (A call may still time out while grpc-js connects to B on a loaded machine.)
    assertThat(client.resultsFrom(beforeSwap))
        .as("no call found no endpoint while the endpoint was swapped")
        .noneMatch(Result::unavailable);

    // 2b. B's pod is terminating, still serving, and no endpoint is ready anywhere (a replicas: 1
    // rollout): kube-proxy's fallback routes to it, and so must the assignment grpc-js gets.
    int beforeTerminating = client.results().size();
    cluster.apply(slice(backendB, Slices.Conditions.TERMINATING_SERVING));
    Awaitility.await("the table holds B as serving and terminating")
        .atMost(FOLLOWS)
        .until(
            () ->
                agent
                    .service("shop", "cart")
                    .filter(
                        cart ->
                            cart.endpoints().size() == 1 && cart.endpoints().get(0).terminating())
                    .isPresent());
    awaitCount(client.results().size() + 10);
    assertThat(client.resultsFrom(beforeTerminating))
        .as("calls keep reaching B while it drains and nothing else can take them")
        .noneMatch(Result::unavailable)
        .anyMatch(r -> r.answeredBy("backend-b"));

    // 3. The Service is deleted (and its slice, as Kubernetes' garbage collector deletes it):
    // calls fail fast with UNAVAILABLE, not by their deadline.
    int beforeDelete = client.results().size();
    long deleted = System.nanoTime();
    cluster.delete(service);
    cluster.delete(slice(backendB, Slices.Conditions.TERMINATING_SERVING));
    awaitLatest("calls fail with UNAVAILABLE", FOLLOWS, Result::unavailable);
    long failedMs = (System.nanoTime() - deleted) / 1_000_000;
    int firstFailure = indexOfFirst(beforeDelete, r -> !r.ok());
    awaitCount(firstFailure + 5);
    List<Result> afterDelete = client.results().subList(firstFailure, firstFailure + 5);
    assertThat(afterDelete)
        .as("after the deletion every call fails with UNAVAILABLE")
        .allMatch(Result::unavailable);
    assertThat(client.resultsFrom(beforeDelete))
        .as("no call waits for its deadline")
        .noneMatch(r -> r.code() == 4);
    System.out.printf(
        "grpc-js xDS: first answer (A) %d ms after start, on B %d ms after the slice change,"
            + " UNAVAILABLE %d ms after the deletion (%s); %d calls, A answered %d, B %d%n",
        firstMs,
        followedMs,
        failedMs,
        afterDelete.get(0).details(),
        client.results().size(),
        backendA.calls(),
        backendB.calls());
  }

  @Test
  void grpcJsReachesADualStackPodThroughItsAdditionalAddress() throws Exception {
    // One pod listed by the controller in an IPv4 slice at 127.0.0.3 (nothing listens there) and
    // an IPv6 slice at ::1 (its backend); the Service is IPv4 first. grpc-js-xds reads
    // additional_addresses by default (GRPC_EXPERIMENTAL_XDS_DUALSTACK_ENDPOINTS unset means true
    // in 1.14.1), and its pick_first tries the endpoint's addresses in turn (happy eyeballs).
    Path bootstrap = dir.resolve("bootstrap.json");
    client = GrpcJsXdsClient.start(bootstrap, TARGET, IdBackend.METHOD, CALL_DEADLINE, CLIENT_RUN);
    cluster = new MockCluster();
    backendA = new IdBackend("backend-v6", "::1");
    Service service = service();
    service.getSpec().setIpFamilies(List.of("IPv4", "IPv6"));
    service.getSpec().setIpFamilyPolicy("RequireDualStack");
    cluster.apply(service);
    cluster.apply(familySlice("cart-ipv4", "IPv4", "127.0.0.3", backendA));
    cluster.apply(familySlice("cart-ipv6", "IPv6", "::1", backendA));
    agent = AgentHarness.start(cluster.url());
    Awaitility.await("both slices in the table")
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                agent
                    .service("shop", "cart")
                    .filter(cart -> !cart.servicePorts().isEmpty())
                    .filter(
                        cart ->
                            cart.endpoints().stream().anyMatch(e -> e.toString().contains("::1")))
                    .isPresent());
    assertThat(agent.service("shop", "cart").orElseThrow().endpoints())
        .as("the pod is one endpoint, 127.0.0.3 (the first family's address) its primary")
        .singleElement()
        .satisfies(e -> assertThat(e.ip()).isEqualTo("127.0.0.3"));

    writeBootstrap(bootstrap, agent.socket());
    long started = System.nanoTime();
    client.go();

    awaitLatest("a call answered through ::1", FIRST_ANSWER, r -> r.answeredBy("backend-v6"));
    long firstMs = (System.nanoTime() - started) / 1_000_000;
    int first = indexOfFirst(0, r -> r.answeredBy("backend-v6"));
    awaitCount(first + 10);
    assertThat(client.results().subList(first, first + 10))
        .as("every call after the first reaches the pod through its additional address")
        .allMatch(r -> r.answeredBy("backend-v6"));
    System.out.printf(
        "grpc-js xDS dual-stack: first answer through ::1 %d ms after start; %d calls%n",
        firstMs, client.results().size());
  }

  /** One family's slice of cart's one pod, as the controller writes it, on the backend's port. */
  private static EndpointSlice familySlice(
      String name, String family, String ip, IdBackend backend) {
    EndpointSlice slice =
        Slices.slice(
            "shop",
            name,
            "cart",
            true,
            backend.port(),
            List.of(new Slices.Pod("cart-a", ip, "node-a", "zone-a", Slices.Conditions.READY)));
    slice.setAddressType(family);
    slice.setPorts(
        List.of(
            new EndpointPortBuilder()
                .withName(PORT_NAME)
                .withPort(backend.port())
                .withProtocol("TCP")
                .build()));
    return slice;
  }

  /**
   * An ExternalName Service is a LOGICAL_DNS cluster to its external name: grpc-js-xds accepts it
   * as a top-level cluster and resolves the name itself ({@code localhost}, where the backend
   * listens on 127.0.0.1), on the port the name gives.
   */
  @Test
  void grpcJsReachesAnExternalNameServiceThroughItsLogicalDnsCluster() throws Exception {
    backendA = new IdBackend("backend-a");
    Path bootstrap = dir.resolve("bootstrap.json");
    client =
        GrpcJsXdsClient.start(
            bootstrap,
            "xds:///ext.shop:" + backendA.port(),
            IdBackend.METHOD,
            CALL_DEADLINE,
            CLIENT_RUN);
    cluster = new MockCluster();
    cluster.apply(
        new ServiceBuilder()
            .withNewMetadata()
            .withNamespace("shop")
            .withName("ext")
            .addToLabels(Slices.MESH_LABEL, "true")
            .endMetadata()
            .withNewSpec()
            .withType("ExternalName")
            .withExternalName("localhost")
            .endSpec()
            .build());
    agent = AgentHarness.start(cluster.url());
    Awaitility.await("ext in the table")
        .atMost(Duration.ofSeconds(10))
        .until(() -> agent.service("shop", "ext").isPresent());

    writeBootstrap(bootstrap, agent.socket());
    client.go();

    awaitLatest(
        "a call answered by backend-a through localhost",
        FIRST_ANSWER,
        r -> r.answeredBy("backend-a"));
  }

  private void awaitLatest(String what, Duration within, Predicate<Result> is) {
    client.awaitLatest(what, within, is);
  }

  private void awaitCount(int count) {
    client.awaitCount(count, FOLLOWS);
  }

  private int indexOfFirst(int from, Predicate<Result> is) {
    return client.indexOfFirst(from, is);
  }

  /** Service cart in shop: port 8080, named {@value #PORT_NAME}, to the pods' named targetPort. */
  private static Service service() {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace("shop")
        .withName("cart")
        .addToLabels(Slices.MESH_LABEL, "true")
        .endMetadata()
        .withNewSpec()
        .addToSelector("app", "cart")
        .withPorts(
            new ServicePortBuilder()
                .withName(PORT_NAME)
                .withPort(8080)
                .withProtocol("TCP")
                .withTargetPort(new IntOrString(PORT_NAME))
                .build())
        .endSpec()
        .build();
  }

  /**
   * Cart's one slice with {@code backend} as its one ready pod: 127.0.0.1 and the backend's own
   * port, which the named targetPort resolved to for that pod.
   */
  private static EndpointSlice slice(IdBackend backend) {
    return slice(backend, Slices.Conditions.READY);
  }

  /** The same slice with its one pod in {@code conditions}. */
  private static EndpointSlice slice(IdBackend backend, Slices.Conditions conditions) {
    EndpointSlice slice =
        Slices.slice(
            "shop",
            "cart-x7k2p",
            "cart",
            true,
            backend.port(),
            List.of(
                new Slices.Pod(
                    "cart-" + backend.id(), "127.0.0.1", "node-a", "zone-a", conditions)));
    slice.setPorts(
        List.of(
            new EndpointPortBuilder()
                .withName(PORT_NAME)
                .withPort(backend.port())
                .withProtocol("TCP")
                .build()));
    return slice;
  }

  /** The bootstrap a Node workload gets: the agent's socket, node id and locality (grpc-js). */
  private static void writeBootstrap(Path file, Path socket) throws Exception {
    Files.writeString(
        file,
        """
        {
          "xds_servers": [
            {
              "server_uri": "unix://%s",
              "channel_creds": [{"type": "insecure"}],
              "server_features": ["xds_v3"]
            }
          ],
          "node": {"id": "grpc-js-interop~node-a", "locality": {"zone": "zone-a"}}
        }
        """
            .formatted(socket.toAbsolutePath()),
        StandardCharsets.UTF_8);
  }
}
