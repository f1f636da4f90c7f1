package dev.routesync.xds;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.table.TopologyDecision;
import dev.routesync.testing.AgentHarness;
import dev.routesync.testing.MockCluster;
import dev.routesync.testing.TcpProxy;
import dev.routesync.testing.XdsAgent;
import dev.routesync.testing.XdsBackends;
import dev.routesync.testing.XdsBootstrap;
import dev.routesync.xds.GrpcJsXdsClient.Result;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The second unmodified xDS client, grpc-js-xds, routes as this node's topology decision says (the
 * checks of {@link TopologyInteropTest}, which grpc-java passes): a Service with {@code
 * trafficDistribution: PreferClose} and zone hints sends calls only to the endpoint hinted for the
 * agent's zone while it answers, and fails over to priority 1 when it stops; {@code
 * internalTrafficPolicy: Local} with no endpoint on this node fails calls with UNAVAILABLE, follows
 * a pod onto the node, and fails again when it leaves.
 *
 * <p>The agent runs as node-a in zone-a; backends a, b and c (grpc-java servers) listen on
 * 127.0.0.2, .3 and .4. The client is {@code interop/grpc-js/xds-client.js}, calling every 50 ms;
 * its stderr (grpc-js's xDS and {@code priority} trace) is kept in {@code target/}.
 */
@Timeout(150)
class GrpcJsTopologyInteropTest {

  private static final String METHOD = XdsBackends.WHO.getFullMethodName();
  private static final Duration CALL_DEADLINE = Duration.ofSeconds(2);

  /** Longer than any test needs (~10 s), short enough that a stray script ends soon. */
  private static final Duration CLIENT_RUN = Duration.ofSeconds(90);

  /** Node's start (grpc-js-xds parses Envoy's protos) on a loaded 2-core machine, plus xDS. */
  private static final Duration FIRST_ANSWER = Duration.ofSeconds(30);

  /** A slice change: the agent's debounce (20 ms here), one EDS push, the client's new picker. */
  private static final Duration FOLLOWS = Duration.ofSeconds(10);

  /**
   * A failover within grpc-js: at worst its failover timer (10 s, for a priority that stays
   * CONNECTING) and the connections to priority 1.
   */
  private static final Duration FAILOVER = Duration.ofSeconds(20);

  @TempDir Path dir;

  private MockCluster cluster;
  private AgentHarness agent;
  private XdsBackends backends;
  private TcpProxy proxy;
  private GrpcJsXdsClient client;
  private TopologyCart cart;

  @BeforeEach
  void start() throws Exception {
    GrpcJsXdsClient.assumeRunnable();
    cluster = new MockCluster();
    backends = XdsBackends.start("a", "b", "c");
    cart = new TopologyCart(cluster, backends);
    proxy = new TcpProxy(cluster.port());
    var on = XdsAgent.on(dir.resolve("rs.sock"), 0);
    agent =
        AgentHarness.startWith(
                proxy.url(), c -> on.apply(c).withNodeName("node-a").withZone("zone-a"), 0)
            .cutOnClose(proxy);
  }

  @AfterEach
  void stop() throws Exception {
    // The subprocess first: destroyed forcibly if it does not stop within 3 s of its stdin closing.
    if (client != null) {
      client.close();
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
    if (proxy != null) {
      proxy.close();
    }
  }

  @Test
  void callsGoOnlyToTheZonesHintedEndpointAndFailOverToPriorityOneWhenItStops() throws Exception {
    // Node loads grpc-js-xds (seconds) while the Service and its slices are written.
    client = launch("grpc-js-topology-zone.log");
    cart.service("PreferClose", null);
    cart.slice("a", "node-x", "zone-a", "zone-a");
    cart.slice("b", "node-y", "zone-b", "zone-b");
    cart.slice("c", "node-z", "zone-b", "zone-b");
    Awaitility.await("cart decided SAME_ZONE over its 3 endpoints")
        .atMost(FOLLOWS)
        .until(
            () ->
                agent
                    .service("shop", "cart")
                    .filter(s -> s.endpoints().size() == 3)
                    .filter(s -> s.topology().mode() == TopologyDecision.Mode.SAME_ZONE)
                    .isPresent());
    go();

    // 1. While a answers, every call goes to a: b and c (priority 1) are never called.
    client.awaitLatest("a call answered by a", FIRST_ANSWER, r -> r.answeredBy("a"));
    int firstA = client.indexOfFirst(0, r -> r.answeredBy("a"));
    client.awaitCount(firstA + 30, FOLLOWS);
    assertThat(client.resultsFrom(firstA).subList(0, 30))
        .as("once routed, every call goes to a, the backend hinted for zone-a")
        .allMatch(r -> r.answeredBy("a"));
    assertThat(client.results())
        .as("no call reached priority 1 while a answered")
        .noneMatch(onPriorityOne());
    assertThat(backends.get("b").calls().get() + backends.get("c").calls().get()).isZero();

    // 2. a stops answering; its hints stay (the controller has not rewritten them): priority 1.
    int beforeStop = client.results().size();
    long stopped = System.nanoTime();
    backends.get("a").server().shutdownNow();
    client.awaitLatest("calls failed over to b or c", FAILOVER, onPriorityOne());
    int firstFailover = client.indexOfFirst(beforeStop, onPriorityOne());
    long failoverMs = (client.results().get(firstFailover).readAt() - stopped) / 1_000_000;
    client.awaitCount(firstFailover + 20, FOLLOWS);
    assertThat(client.resultsFrom(firstFailover).subList(0, 20))
        .as("after the failover every call goes to priority 1")
        .allMatch(onPriorityOne());
    List<Result> during = client.results().subList(beforeStop, firstFailover);
    System.out.printf(
        "grpc-js topology interop: failed over to priority 1 in %d ms after the preferred backend"
            + " stopped; %d calls meanwhile, %d failed %s%n",
        failoverMs,
        during.size(),
        during.stream().filter(r -> !r.ok()).count(),
        during.stream().filter(r -> !r.ok()).map(r -> r.status() + ": " + r.details()).toList());
    System.out.println(
        "grpc-js priority trace (last lines):\n  "
            + String.join("\n  ", client.traced(GrpcJsTopologyInteropTest::priorityTrace, 20)));
  }

  @Test
  void internalTrafficPolicyLocalFailsCallsWithoutALocalEndpointAndFollowsAPodOntoAndOffTheNode()
      throws Exception {
    client = launch("grpc-js-topology-local.log");
    cart.service(null, "Local");
    cart.slice("b", "node-b", "zone-a", null);
    Awaitility.await("cart decided NO_LOCAL_ENDPOINT")
        .atMost(FOLLOWS)
        .until(
            () ->
                agent
                    .service("shop", "cart")
                    .filter(s -> s.topology().mode() == TopologyDecision.Mode.NO_LOCAL_ENDPOINT)
                    .isPresent());
    go();

    // 1. Never the remote endpoint: calls fail with UNAVAILABLE, naming the drop category.
    client.awaitLatest(
        "calls dropped as no_node_local_endpoint", FIRST_ANSWER, droppedAsNotLocal());
    int firstDrop = client.indexOfFirst(0, droppedAsNotLocal());
    client.awaitCount(firstDrop + 5, FOLLOWS);
    assertThat(client.resultsFrom(firstDrop).subList(0, 5)).allMatch(droppedAsNotLocal());
    assertThat(client.results()).noneMatch(Result::ok);
    assertThat(backends.get("b").calls().get()).isZero();

    // 2. A pod starts on this node: calls reach it, within the debounce and a push.
    int beforeOnto = client.results().size();
    long arrived = System.nanoTime();
    cart.slice("a", "node-a", "zone-a", null);
    client.awaitLatest("calls answered by a, on this node", FOLLOWS, r -> r.answeredBy("a"));
    int firstA = client.indexOfFirst(beforeOnto, r -> r.answeredBy("a"));
    long ontoMs = (client.results().get(firstA).readAt() - arrived) / 1_000_000;
    client.awaitCount(firstA + 10, FOLLOWS);
    assertThat(client.resultsFrom(firstA).subList(0, 10)).allMatch(r -> r.answeredBy("a"));

    // 3. It leaves the node: calls fail again, never reaching b.
    int beforeOff = client.results().size();
    long left = System.nanoTime();
    cart.deleteSlice("a", "node-a", "zone-a");
    client.awaitLatest("calls dropped again", FOLLOWS, droppedAsNotLocal());
    int firstDropAgain = client.indexOfFirst(beforeOff, droppedAsNotLocal());
    long offMs = (client.results().get(firstDropAgain).readAt() - left) / 1_000_000;
    client.awaitCount(firstDropAgain + 5, FOLLOWS);
    assertThat(client.resultsFrom(firstDropAgain).subList(0, 5)).allMatch(droppedAsNotLocal());
    assertThat(client.results()).noneMatch(r -> r.answeredBy("b"));
    assertThat(backends.get("b").calls().get()).isZero();
    System.out.printf(
        "grpc-js topology interop: internalTrafficPolicy Local answer changed %d ms after a pod"
            + " came onto the node, %d ms after it left (debounce %d ms); dropped as: %s%n",
        ontoMs,
        offMs,
        AgentHarness.FAST.debounce().toMillis(),
        client.results().get(firstDropAgain).details());
  }

  private GrpcJsXdsClient launch(String trace) throws Exception {
    return GrpcJsXdsClient.start(
        dir.resolve("xds-bootstrap.json"),
        TopologyCart.TARGET,
        METHOD,
        CALL_DEADLINE,
        CLIENT_RUN,
        Path.of("target", trace));
  }

  /** Writes the bootstrap the client was launched with (node-a in zone-a) and starts the calls. */
  private void go() throws Exception {
    XdsBootstrap bootstrap =
        XdsBootstrap.write(dir, XdsAgent.serverUri(agent), "grpc-js~node-a", "zone-a");
    assertThat(bootstrap.file()).isEqualTo(dir.resolve("xds-bootstrap.json"));
    client.go();
  }

  private static Predicate<Result> onPriorityOne() {
    return r -> r.answeredBy("b") || r.answeredBy("c");
  }

  private static Predicate<Result> droppedAsNotLocal() {
    return r -> r.unavailable() && r.details().contains(XdsResources.NO_NODE_LOCAL_ENDPOINT);
  }

  /** grpc-js's priority policy's own lines about state changes and its failover timer. */
  private static boolean priorityTrace(String line) {
    return line.contains("| priority |")
        && (line.contains(" -> ") || line.contains("ailover") || line.contains("Transitioning"));
  }
}
