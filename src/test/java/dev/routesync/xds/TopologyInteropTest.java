package dev.routesync.xds;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.table.TopologyDecision;
import dev.routesync.testing.AgentHarness;
import dev.routesync.testing.MockCluster;
import dev.routesync.testing.Slices.Conditions;
import dev.routesync.testing.TcpProxy;
import dev.routesync.testing.XdsAgent;
import dev.routesync.testing.XdsBackends;
import dev.routesync.testing.XdsBootstrap;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * grpc-java's own xDS client (unmodified) routes as this node's topology decision says: a Service
 * with {@code trafficDistribution: PreferClose} and zone hints (written as the EndpointSlice
 * controller writes them: hints with nodeName and zone on every endpoint) sends calls to the
 * endpoints hinted for the agent's zone, and fails over to the next priority when that backend
 * stops; {@code internalTrafficPolicy: Local} with no endpoint on this node fails calls with
 * UNAVAILABLE, and a pod arriving on the node is routed to within the usual debounce.
 *
 * <p>The agent runs as node-a in zone-a ({@code --node-name}, {@code --zone}); backends a, b and c
 * listen on 127.0.0.2, .3 and .4.
 */
@Timeout(120)
class TopologyInteropTest {

  private static final String TARGET = TopologyCart.TARGET;
  private static final Duration CALL_DEADLINE = Duration.ofSeconds(2);
  private static final Duration FOLLOW = Duration.ofSeconds(5);
  private static final Duration FIRST_ROUTE = Duration.ofSeconds(30);

  @TempDir Path dir;

  private MockCluster cluster;
  private AgentHarness agent;
  private XdsBackends backends;
  private TcpProxy proxy;
  private final List<ManagedChannel> channels = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    cluster = new MockCluster();
    backends = XdsBackends.start("a", "b", "c");
    proxy = new TcpProxy(cluster.port());
    var on = XdsAgent.on(dir.resolve("rs.sock"), 0);
    agent =
        AgentHarness.startWith(
                proxy.url(), c -> on.apply(c).withNodeName("node-a").withZone("zone-a"), 0)
            .cutOnClose(proxy);
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
    if (proxy != null) {
      proxy.close();
    }
  }

  private void service(String trafficDistribution, String internalTrafficPolicy) {
    new TopologyCart(cluster, backends).service(trafficDistribution, internalTrafficPolicy);
  }

  /** One slice for backend {@code id}: its pod on {@code node} in {@code zone}, hinted so. */
  private EndpointSlice slice(String id, String node, String zone, String hintZone) {
    return new TopologyCart(cluster, backends).slice(id, node, zone, hintZone);
  }

  @Test
  void callsGoToTheZonesHintedEndpointAndFailOverToTheNextPriorityWhenItStops() throws Exception {
    service("PreferClose", null);
    slice("a", "node-x", "zone-a", "zone-a");
    slice("b", "node-y", "zone-b", "zone-b");
    slice("c", "node-z", "zone-b", "zone-b");
    Awaitility.await()
        .atMost(FOLLOW)
        .until(
            () ->
                agent
                    .service("shop", "cart")
                    .filter(s -> s.endpoints().size() == 3)
                    .filter(s -> s.topology().mode() == TopologyDecision.Mode.SAME_ZONE)
                    .isPresent());
    ManagedChannel channel = channel();

    awaitOnly(channel, FIRST_ROUTE, "a");
    assertThat(calls(channel, 30)).containsOnly("a");

    // a stops answering; its hints stay (the controller has not rewritten them): priority 1.
    long stopped = System.nanoTime();
    backends.get("a").server().shutdownNow();
    awaitOnly(channel, Duration.ofSeconds(20), "b", "c");
    System.out.println(
        "topology interop: grpc-java failed over to priority 1 in "
            + (System.nanoTime() - stopped) / 1_000_000
            + " ms after the preferred backend stopped");
  }

  @Test
  void internalTrafficPolicyLocalFailsCallsWithoutALocalEndpointAndFollowsAPodOntoTheNode()
      throws Exception {
    service(null, "Local");
    EndpointSlice remote = slice("b", "node-b", "zone-a", null);
    Awaitility.await()
        .atMost(FOLLOW)
        .until(
            () ->
                agent
                    .service("shop", "cart")
                    .filter(s -> s.topology().mode() == TopologyDecision.Mode.NO_LOCAL_ENDPOINT)
                    .isPresent());
    ManagedChannel channel = channel();

    // Never the remote endpoint: calls fail with UNAVAILABLE, naming the drop category.
    StatusRuntimeException failed =
        Awaitility.await()
            .atMost(FIRST_ROUTE)
            .ignoreExceptions()
            .until(
                () -> failure(channel),
                f -> f != null && f.getStatus().getCode() != Status.Code.DEADLINE_EXCEEDED);
    assertThat(failed.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(failed.getStatus().getDescription()).contains("no_node_local_endpoint");
    assertThat(backends.get("b").calls().get()).isZero();

    // A pod starts on this node: routed to it, within the debounce and a push.
    long arrived = System.nanoTime();
    slice("a", "node-a", "zone-a", null);
    awaitOnly(channel, FOLLOW, "a");
    long onto = (System.nanoTime() - arrived) / 1_000_000;
    assertThat(backends.get("b").calls().get()).isZero();

    // It leaves the node: calls fail again, never reaching b.
    long left = System.nanoTime();
    new TopologyCart(cluster, backends).deleteSlice("a", "node-a", "zone-a");
    Awaitility.await().atMost(FOLLOW).ignoreExceptions().until(() -> failure(channel) != null);
    long off = (System.nanoTime() - left) / 1_000_000;
    assertThat(backends.get("b").calls().get()).isZero();
    assertThat(remote).isNotNull();
    System.out.println(
        "topology interop: internalTrafficPolicy Local answer changed "
            + onto
            + " ms after a pod came onto the node, "
            + off
            + " ms after it left (debounce "
            + AgentHarness.FAST.debounce().toMillis()
            + " ms)");
  }

  @Test
  void internalTrafficPolicyLocalKeepsCallingThisNodesDrainingPodWhileARemoteOneIsReady()
      throws Exception {
    service(null, "Local");
    TopologyCart cart = new TopologyCart(cluster, backends);
    cart.sliceIn("a", "node-a", "zone-a", Conditions.READY);
    cart.sliceIn("b", "node-b", "zone-a", Conditions.READY);
    Awaitility.await()
        .atMost(FOLLOW)
        .until(
            () ->
                agent
                    .service("shop", "cart")
                    .filter(s -> s.endpoints().size() == 2)
                    .filter(s -> s.topology().mode() == TopologyDecision.Mode.LOCAL)
                    .isPresent());
    ManagedChannel channel = channel();
    awaitOnly(channel, FIRST_ROUTE, "a");

    // This node's pod begins terminating and still serves; node-b's stays ready. kube-proxy keeps
    // to this node's pod: so does the client, and it never reaches b.
    cart.sliceIn("a", "node-a", "zone-a", Conditions.TERMINATING_SERVING);
    Awaitility.await()
        .atMost(FOLLOW)
        .until(
            () ->
                agent
                    .service("shop", "cart")
                    .filter(
                        s ->
                            s.endpoints().stream()
                                .noneMatch(e -> "node-a".equals(e.node()) && e.ready()))
                    .isPresent());
    // Calls for a while after the table changed (the push follows within the debounce): each one
    // answered by a.
    long until = System.nanoTime() + Duration.ofSeconds(2).toNanos();
    int answered = 0;
    while (System.nanoTime() < until) {
      assertThat(XdsBackends.who(channel, CALL_DEADLINE)).isEqualTo("a");
      answered++;
    }
    assertThat(backends.get("b").calls().get()).isZero();

    // The pod stops serving: no endpoint on this node, so calls fail, still never reaching b.
    cart.sliceIn("a", "node-a", "zone-a", Conditions.TERMINATING);
    StatusRuntimeException failed =
        Awaitility.await()
            .atMost(FOLLOW)
            .ignoreExceptions()
            .until(
                () -> failure(channel),
                f -> f != null && f.getStatus().getCode() != Status.Code.DEADLINE_EXCEEDED);
    assertThat(failed.getStatus().getDescription()).contains("no_node_local_endpoint");
    assertThat(backends.get("b").calls().get()).isZero();
    System.out.println(
        "topology interop: internalTrafficPolicy Local kept this node's serving terminating pod for "
            + answered
            + " calls over 2 s while a remote pod was ready; b answered 0");
  }

  private ManagedChannel channel() throws Exception {
    XdsBootstrap bootstrap = XdsBootstrap.write(dir, XdsAgent.serverUri(agent), "node-a", "zone-a");
    ManagedChannel channel = bootstrap.channel(TARGET);
    channels.add(channel);
    return channel;
  }

  private void awaitOnly(ManagedChannel channel, Duration within, String... ids) {
    Set<String> expected = Set.of(ids);
    Awaitility.await("calls go only to " + expected)
        .atMost(within)
        .ignoreExceptions()
        .until(() -> expected.containsAll(calls(channel, 10)));
    assertThat(calls(channel, 20)).isSubsetOf(expected);
  }

  private static Set<String> calls(ManagedChannel channel, int count) {
    Set<String> answered = new HashSet<>();
    for (int i = 0; i < count; i++) {
      answered.add(XdsBackends.who(channel, CALL_DEADLINE));
    }
    return answered;
  }

  private static StatusRuntimeException failure(ManagedChannel channel) {
    try {
      XdsBackends.who(channel, CALL_DEADLINE);
      return null;
    } catch (StatusRuntimeException e) {
      return e;
    }
  }
}
