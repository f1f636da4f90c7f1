package dev.routesync.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.routesync.api.v1.PortCount;
import dev.routesync.config.Source;
import dev.routesync.table.Port;
import dev.routesync.table.RoutingTable;
import dev.routesync.table.ServiceEndpoints;
import dev.routesync.table.ServiceKey;
import dev.routesync.testing.AgentHarness;
import dev.routesync.testing.GrpcJavaClient;
import dev.routesync.testing.MockCluster;
import dev.routesync.testing.Slices;
import dev.routesync.testing.Slices.Pod;
import dev.routesync.testing.TcpProxy;
import dev.routesync.testing.UdsHttp;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Seed 002 through the agent: Service {@code quote} sends port 80 to the named targetPort {@code
 * http}, the pods renamed theirs, and the EndpointSlice controller lists all 8 pods ready in a
 * {@code ports: null} slice. Before the Services watch the agent served READY=8; now every API and
 * {@code get services} say {@code http} has 0 of 8.
 */
@Timeout(120)
class PortCountsEndToEndTest {

  private static final Duration CONVERGE = Duration.ofSeconds(20);
  private static final ServiceKey QUOTE = new ServiceKey("shop", "quote");

  private static Service service(String name, String portName, UnaryOperator<ServiceBuilder> more) {
    ServiceBuilder builder =
        new ServiceBuilder()
            .withNewMetadata()
            .withNamespace("shop")
            .withName(name)
            .addToLabels(Slices.MESH_LABEL, "true")
            .endMetadata()
            .withNewSpec()
            .addToSelector("app", name)
            .addNewPort()
            .withName(portName)
            .withPort(80)
            .withTargetPort(new IntOrString("http"))
            .endPort()
            .endSpec();
    return more.apply(builder).build();
  }

  private static void apply(MockCluster cluster, Service service) {
    cluster.client().resource(service).createOr(NonDeletingOperation::update);
  }

  private static List<Pod> pods(String prefix, int first, int count) {
    List<Pod> pods = new ArrayList<>();
    for (int i = first; i < first + count; i++) {
      pods.add(Pod.ready(prefix + "-" + i, "10.0.0." + i));
    }
    return pods;
  }

  private static PortCount count(String name, int port, int ready, int listed) {
    return PortCount.newBuilder()
        .setName(name)
        .setPort(port)
        .setProtocol("TCP")
        .setReady(ready)
        .setListed(listed)
        .build();
  }

  private static Optional<Long> versionOf(RoutingTable table, ServiceKey key) {
    return table.get(key).map(ServiceEndpoints::version);
  }

  @Test
  void theIncidentReadsHttpZeroOfEightEverywhereAndAPortRenamePublishesOneVersion()
      throws Exception {
    try (MockCluster cluster = new MockCluster()) {
      apply(cluster, service("quote", "http", b -> b));
      cluster.apply(Slices.portless("shop", "quote-a", "quote", pods("quote", 1, 8)));
      // A Service known only from the Services watch: it gets no entry.
      apply(cluster, service("lonely", "http", b -> b));

      try (AgentHarness agent = AgentHarness.start(cluster.url());
          GrpcJavaClient grpc = new GrpcJavaClient(agent.socket())) {
        UdsHttp http = new UdsHttp(agent.socket());
        // The initial sync waited for both watches: the first trusted table has the ports.
        assertThat(agent.service("shop", "quote").orElseThrow().servicePorts())
            .containsExactly(new Port("http", 80, "TCP"));
        assertThat(agent.service("shop", "lonely")).isEmpty();

        JsonObject json = http.get("/v1/services/shop/quote").json();
        assertThat(json.getJsonArray("endpoints")).hasSize(8);
        assertThat(json.getJsonArray("port_counts"))
            .isEqualTo(
                new JsonArray()
                    .add(
                        new JsonObject()
                            .put("name", "http")
                            .put("port", 80)
                            .put("protocol", "TCP")
                            .put("ready", 0)
                            .put("listed", 8)));
        assertThat(grpc.resolve("shop", "quote").getPortCountsList())
            .containsExactly(count("http", 80, 0, 8));
        assertThat(grpc.list("shop").getServices(0).getPortCountsList())
            .containsExactly(count("http", 80, 0, 8));

        Cli.Result get = Cli.run("get", "services", "-n", "shop", "--socket", agent.socket() + "");
        assertThat(get.exitCode()).as(get.err()).isZero();
        assertThat(get.out().lines())
            .containsExactly(
                "NAMESPACE   NAME    ENDPOINTS   READY   PORTS      VERSION",
                "shop        quote   8           0       http=0/8   "
                    + agent.service("shop", "quote").orElseThrow().version());

        // The Service's port renamed: one new version of quote, no flash in between.
        long before = agent.table().version();
        long quoteBefore = versionOf(agent.table(), QUOTE).orElseThrow();
        apply(cluster, service("quote", "web", b -> b));
        await()
            .atMost(CONVERGE)
            .until(
                () ->
                    grpc.resolve("shop", "quote")
                        .getPortCountsList()
                        .equals(List.of(count("web", 80, 0, 8))));
        List<Long> quoteVersions =
            agent.published().stream()
                .filter(table -> table.version() > before)
                .map(table -> versionOf(table, QUOTE).orElseThrow())
                .filter(version -> version != quoteBefore)
                .distinct()
                .toList();
        assertThat(quoteVersions).hasSize(1);

        // A Service change that leaves its ports alone publishes nothing. The informer delivers
        // Service events in order, so once lonely's later change is handled, quote's was too.
        long afterRename = agent.table().version();
        int publishedSoFar = agent.published().size();
        apply(
            cluster,
            service(
                "quote",
                "web",
                b -> b.editMetadata().addToAnnotations("touched", "yes").endMetadata()));
        apply(
            cluster, service("lonely", "http", b -> b.editSpec().withClusterIP("None").endSpec()));
        cluster.apply(
            Slices.slice("shop", "lonely-a", "lonely", true, 8080, pods("lonely", 20, 1)));
        await().atMost(CONVERGE).until(() -> agent.service("shop", "lonely").isPresent());
        assertThat(versionOf(agent.table(), QUOTE)).contains(quoteVersions.get(0));
        assertThat(agent.published().subList(publishedSoFar, agent.published().size()))
            .allSatisfy(
                table ->
                    assertThat(table.changedSince(afterRename).orElseThrow())
                        .doesNotContain(QUOTE));
        cluster.close(); // before the agent: see MockCluster#url
      }
    }
  }

  @Test
  void aRelistOfTheServicesWatchPublishesNothingWhenNothingChanged() throws Exception {
    try (MockCluster cluster = new MockCluster()) {
      apply(cluster, service("quote", "http", b -> b));
      cluster.apply(Slices.portless("shop", "quote-a", "quote", pods("quote", 1, 8)));
      try (AgentHarness agent =
          AgentHarness.start(
              cluster.url(),
              Source.ENDPOINTSLICES,
              AgentHarness.FAST,
              Duration.ofSeconds(10),
              Duration.ofMillis(200),
              0)) {
        RoutingTable synced = agent.table();
        assertThat(synced.get(QUOTE).orElseThrow().portCounts())
            .containsExactly(new dev.routesync.table.PortCount("http", 80, "TCP", 0, 8));
        double servicesListed =
            agent.counter("routesync.events", "kind", "Service", "type", "added");
        // Each relist of the Services watch lists quote again (an add per listed object), and
        // swaps its generation in; were the ports lost for one flush, a version would be published.
        await()
            .atMost(CONVERGE)
            .until(
                () ->
                    agent.counter("routesync.events", "kind", "Service", "type", "added")
                            >= servicesListed + 2
                        && agent.counter("routesync.batches", "cause", "relist") >= 6);
        assertThat(agent.table()).isSameAs(synced);
        cluster.close(); // before the agent: see MockCluster#url
      }
    }
  }

  @Test
  void anApiServerRestartRelistsBothWatchesWithoutFlashingThePorts() throws Exception {
    try (MockCluster before = new MockCluster();
        MockCluster after = new MockCluster();
        TcpProxy proxy = new TcpProxy(before.port())) {
      for (MockCluster cluster : List.of(before, after)) {
        apply(cluster, service("quote", "http", b -> b));
        cluster.apply(Slices.portless("shop", "quote-a", "quote", pods("quote", 1, 8)));
      }
      try (AgentHarness agent = AgentHarness.start(proxy.url()).cutOnClose(proxy)) {
        RoutingTable synced = agent.table();
        assertThat(synced.get(QUOTE).orElseThrow().servicePorts()).isNotEmpty();

        proxy.cut();
        // Down for longer than relist-after: both watches relist when the server is back.
        await().atMost(CONVERGE).until(() -> agent.disconnectedSeconds() > 0.5);
        double relists = agent.counter("routesync.batches", "cause", "relist");
        proxy.restore(after.port());
        await()
            .atMost(CONVERGE)
            .until(() -> agent.counter("routesync.batches", "cause", "relist") >= relists + 2);

        // Same objects on the restarted server: nothing to publish, and nothing was published
        // without quote's ports in between. (Before the initial sync, a version of the slices
        // alone may be published; it is never served, since nothing trusts it.)
        assertThat(agent.table()).isSameAs(synced);
        assertThat(agent.published())
            .filteredOn(table -> table.version() >= synced.version())
            .allSatisfy(
                table ->
                    assertThat(table.get(QUOTE))
                        .hasValueSatisfying(
                            quote -> assertThat(quote.servicePorts()).isNotEmpty()));
      }
    }
  }
}
