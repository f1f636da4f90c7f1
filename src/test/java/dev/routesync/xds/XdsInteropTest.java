package dev.routesync.xds;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.testing.AgentHarness;
import dev.routesync.testing.MockCluster;
import dev.routesync.testing.Slices;
import dev.routesync.testing.Slices.Conditions;
import dev.routesync.testing.TcpProxy;
import dev.routesync.testing.XdsAgent;
import dev.routesync.testing.XdsBackends;
import dev.routesync.testing.XdsBackends.Backend;
import dev.routesync.testing.XdsBootstrap;
import dev.routesync.testing.XdsObjects;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * grpc-java's own xDS resolver ({@code io.grpc:grpc-xds}, unmodified, configured only by a
 * bootstrap file) routes {@code xds:///cart.shop:8080} through the agent to real gRPC backends on
 * loopback, whose addresses the mock API server's EndpointSlices carry, and follows their churn.
 *
 * <p>The Service {@code cart} declares port 8080 named {@code http} with a named target port; each
 * backend's slice resolves {@code http} to that backend's own port, so a call reaching a backend
 * proves the agent mapped the Service port to each endpoint's target port.
 */
@Timeout(90)
class XdsInteropTest {

  private static final String TARGET = "xds:///cart.shop:8080";
  private static final Duration CALL_DEADLINE = Duration.ofSeconds(2);

  /** A change reaches the client within a debounce and a push; this bounds it generously. */
  private static final Duration FOLLOW = Duration.ofSeconds(5);

  /**
   * The first xDS channel in a JVM takes seconds (grpc-xds loads and initializes its shaded Envoy
   * protos: ~6 s measured here with a cold JVM, 55 ms for the next channel).
   */
  private static final Duration FIRST_ROUTE = Duration.ofSeconds(30);

  /** gRFC A57's does-not-exist timer: a name the agent does not answer waits this long. */
  private static final Duration DOES_NOT_EXIST_TIMEOUT = Duration.ofSeconds(15);

  @TempDir Path dir;

  private MockCluster cluster;
  private AgentHarness agent;
  private XdsBackends backends;
  private final List<ManagedChannel> channels = new ArrayList<>();
  private final List<TcpProxy> proxies = new ArrayList<>();
  private final Map<String, EndpointSlice> applied = new LinkedHashMap<>();
  private Service cart;

  @BeforeEach
  void start() throws Exception {
    cluster = new MockCluster();
    backends = XdsBackends.start("a", "b", "c");
    cart = XdsObjects.service("shop", "cart", XdsObjects.port("http", 8080));
    cluster.apply(cart);
    agent = startAgent(dir.resolve("rs.sock"), 0);
  }

  /**
   * An agent reaching the mock through a proxy of its own, cut when it closes: a watch the agent
   * closes cleanly can block the mock's event loop (MockCluster#url), and a restart needs the mock
   * to keep serving the next agent.
   */
  private AgentHarness startAgent(Path socket, int tcpPort) throws Exception {
    TcpProxy proxy = new TcpProxy(cluster.port());
    proxies.add(proxy);
    return XdsAgent.start(proxy.url(), socket, tcpPort).cutOnClose(proxy);
  }

  @AfterEach
  void stop() throws Exception {
    for (ManagedChannel channel : channels) {
      channel.shutdownNow();
    }
    for (ManagedChannel channel : channels) {
      channel.awaitTermination(10, TimeUnit.SECONDS);
    }
    if (backends != null) {
      backends.close();
    }
    if (cluster != null) {
      cluster.close();
    }
    if (agent != null) {
      agent.close();
    }
    for (TcpProxy proxy : proxies) {
      proxy.close();
    }
  }

  @Test
  void callsSpreadOverNewEndpointsAndLeaveRemovedOnes() throws Exception {
    serve(Map.of("a", Conditions.READY));
    ManagedChannel channel = channel(TARGET);
    awaitFirstRoute(channel, "a");

    serve(Map.of("a", Conditions.READY, "b", Conditions.READY));
    Awaitility.await("calls reach b").atMost(FOLLOW).until(() -> "b".equals(who(channel)));
    assertThat(calls(channel, 20)).containsOnly("a", "b").contains("a", "b");

    long removed = System.nanoTime();
    serve(Map.of("b", Conditions.READY));
    awaitOnly(channel, "b");
    System.out.println(
        "xDS interop: calls left a "
            + (System.nanoTime() - removed) / 1_000_000
            + " ms after its slice was deleted (debounce "
            + AgentHarness.FAST.debounce().toMillis()
            + " ms)");
  }

  @Test
  void servingTerminatingEndpointGetsNoCallsWhileAnotherIsReady() throws Exception {
    serve(Map.of("b", Conditions.READY));
    ManagedChannel channel = channel(TARGET);
    awaitFirstRoute(channel, "b");

    serve(Map.of("b", Conditions.TERMINATING_SERVING, "c", Conditions.READY));
    awaitOnly(channel, "c");
  }

  /**
   * No endpoint is ready anywhere and one still serves while it terminates (a {@code replicas: 1}
   * rollout, a drained node): kube-proxy routes to it (KEP-1669), and so must grpc-java, which
   * routes only to HEALTHY or UNKNOWN endpoints.
   */
  @Test
  void servingTerminatingEndpointKeepsGettingCallsWhenNoneIsReady() throws Exception {
    serve(Map.of("b", Conditions.READY));
    ManagedChannel channel = channel(TARGET);
    awaitFirstRoute(channel, "b");

    serve(Map.of("b", Conditions.TERMINATING_SERVING));
    Awaitility.await()
        .atMost(FOLLOW)
        .until(
            () ->
                agent
                    .service("shop", "cart")
                    .filter(cart -> cart.endpoints().get(0).terminating())
                    .isPresent());
    // What the client last heard still routes to b: ask the agent for a fresh answer, as a new
    // channel does, then check the old channel too.
    ManagedChannel fresh = channel(TARGET);
    awaitFirstRoute(fresh, "b");
    assertThat(calls(fresh, 20)).containsOnly("b");
    assertThat(calls(channel, 20)).containsOnly("b");
  }

  @Test
  void deletedServiceFailsCallsFastWithUnavailable() throws Exception {
    serve(Map.of("a", Conditions.READY));
    ManagedChannel channel = channel(TARGET);
    awaitFirstRoute(channel, "a");

    // As the API server does: the Service goes, and its slices with it (garbage collection).
    cluster.delete(cart);
    for (EndpointSlice slice : applied.values()) {
      cluster.delete(slice);
    }
    applied.clear();
    Awaitility.await().atMost(FOLLOW).until(() -> agent.service("shop", "cart").isEmpty());
    Awaitility.await("calls fail once the Service is gone")
        .atMost(FOLLOW)
        .until(() -> failure(channel) != null);
    assertFailsFastWithUnavailable(channel);
  }

  @Test
  void lastReadyEndpointTurningNotReadyFailsCallsFastWithUnavailable() throws Exception {
    serve(Map.of("a", Conditions.READY));
    ManagedChannel channel = channel(TARGET);
    awaitFirstRoute(channel, "a");

    // Its process still answers, as a pod failing its readiness probe does.
    serve(Map.of("a", Conditions.NOT_READY));
    Awaitility.await().atMost(FOLLOW).until(() -> agent.ips("shop", "cart").isEmpty());
    Awaitility.await("calls fail once no endpoint is ready")
        .atMost(FOLLOW)
        .until(() -> failure(channel) != null);
    assertFailsFastWithUnavailable(channel);
  }

  @Test
  void unknownServiceFailsTheFirstCallFastWithUnavailable() throws Exception {
    serve(Map.of("a", Conditions.READY));
    // Warms grpc-xds up in this JVM (FIRST_ROUTE), so the figure below is the agent's answer.
    awaitFirstRoute(channel(TARGET), "a");
    long opened = System.nanoTime();
    ManagedChannel channel = channel("xds:///nosuch.shop:8080");
    StatusRuntimeException first = failure(channel);
    Duration waited = Duration.ofNanos(System.nanoTime() - opened);
    assertThat(first)
        .as("the first call on a channel to a Service that does not exist")
        .isNotNull();
    assertThat(first.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(waited).isLessThan(DOES_NOT_EXIST_TIMEOUT.dividedBy(5));
    assertFailsFastWithUnavailable(channel);
  }

  @Test
  void clientReconnectsToARestartedAgentAndKeepsRouting() throws Exception {
    serve(Map.of("a", Conditions.READY));
    ManagedChannel channel = channel(TARGET);
    awaitFirstRoute(channel, "a");
    int port = agent.agent().api().tcpPort();
    Path socket = agent.socket();

    agent.close();
    agent = null;
    // Its xDS server is gone; what the client last heard still routes.
    assertThat(calls(channel, 5)).containsOnly("a");

    agent = startAgent(socket, port);
    // Only a client that reconnected to the new agent can follow a change made after the restart.
    serve(Map.of("b", Conditions.READY));
    Awaitility.await("the client follows the restarted agent")
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(() -> calls(channel, 10).equals(Set.of("b")));
    awaitOnly(channel, "b");
  }

  /**
   * Makes the cluster hold exactly one slice per backend in {@code pods}, each with that backend's
   * address, port and conditions; the slices of other backends are deleted.
   */
  private void serve(Map<String, Conditions> pods) {
    for (Map.Entry<String, Conditions> pod : pods.entrySet()) {
      Backend backend = backends.get(pod.getKey());
      EndpointSlice slice =
          XdsObjects.slice(
              "shop",
              "cart-" + backend.id(),
              "cart",
              backend.port(),
              List.of(
                  new Slices.Pod(
                      "cart-" + backend.id(), backend.ip(), "node-a", "zone-a", pod.getValue())));
      cluster.apply(slice);
      applied.put(backend.id(), slice);
    }
    for (String gone : new ArrayList<>(applied.keySet())) {
      if (!pods.containsKey(gone)) {
        cluster.delete(applied.remove(gone));
      }
    }
  }

  private ManagedChannel channel(String target) throws Exception {
    XdsBootstrap bootstrap = XdsBootstrap.write(dir, XdsAgent.serverUri(agent), "node-a", "zone-a");
    ManagedChannel channel = bootstrap.channel(target);
    channels.add(channel);
    return channel;
  }

  /** A new channel's first calls: they go to {@code ids} only once it has its first xDS answers. */
  private void awaitFirstRoute(ManagedChannel channel, String... ids) {
    awaitOnly(channel, FIRST_ROUTE, ids);
  }

  /** Waits until calls go to {@code ids} only, then checks that 20 more calls do too. */
  private void awaitOnly(ManagedChannel channel, String... ids) {
    awaitOnly(channel, FOLLOW, ids);
  }

  private void awaitOnly(ManagedChannel channel, Duration within, String... ids) {
    Set<String> expected = Set.of(ids);
    Awaitility.await("calls go only to " + expected)
        .atMost(within)
        .ignoreExceptions()
        .until(() -> expected.containsAll(calls(channel, 10)));
    assertThat(calls(channel, 20)).isSubsetOf(expected);
  }

  private static String who(ManagedChannel channel) {
    return XdsBackends.who(channel, CALL_DEADLINE);
  }

  /** The backends that answered {@code count} calls. */
  private static Set<String> calls(ManagedChannel channel, int count) {
    Set<String> answered = new HashSet<>();
    for (int i = 0; i < count; i++) {
      answered.add(who(channel));
    }
    return answered;
  }

  /** How one call failed, or null when it succeeded. */
  private static StatusRuntimeException failure(ManagedChannel channel) {
    try {
      who(channel);
      return null;
    } catch (StatusRuntimeException e) {
      return e;
    }
  }

  private static void assertFailsFastWithUnavailable(ManagedChannel channel) {
    for (int i = 0; i < 3; i++) {
      long start = System.nanoTime();
      StatusRuntimeException failed = failure(channel);
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      assertThat(failed).as("a call after the Service is gone").isNotNull();
      assertThat(failed.getStatus().getCode())
          .as(failed.getStatus().toString())
          .isEqualTo(Status.Code.UNAVAILABLE);
      assertThat(took).isLessThan(Duration.ofSeconds(1));
    }
  }
}
