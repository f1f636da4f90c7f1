package dev.routesync.xds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.routesync.testing.AgentHarness;
import dev.routesync.testing.GrpcJavaClient;
import dev.routesync.testing.MockCluster;
import dev.routesync.testing.Slices;
import dev.routesync.testing.Slices.Conditions;
import dev.routesync.testing.XdsAgent;
import dev.routesync.testing.XdsBackends;
import dev.routesync.testing.XdsBackends.Backend;
import dev.routesync.testing.XdsBootstrap;
import dev.routesync.testing.XdsObjects;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What grpc-java's own xDS client (unmodified) gets for the Service kinds that are not a plain
 * cluster IP, against the fabric8 mock with slices as the EndpointSlice controller writes them:
 *
 * <ul>
 *   <li>a headless Service with ports routes like any other (Service port to each pod's target
 *       port);
 *   <li>a headless Service without ports (its slices carry {@code ports: null}) routes a port
 *       number to the pods' own port, as its DNS name would;
 *   <li>an ExternalName Service is a LOGICAL_DNS cluster: the client resolves the external name
 *       itself ({@code localhost}, where a backend listens on 127.0.0.1), and the Registry answers
 *       NOT_FOUND naming the external name;
 *   <li>a {@code clusterset.local} name is never served (the client sees the listener does not
 *       exist) and never reaches the local Service of the same name; the Registry refuses it.
 * </ul>
 */
@Timeout(120)
class ServiceKindsInteropTest {

  private static final Duration CALL_DEADLINE = Duration.ofSeconds(2);
  private static final Duration FOLLOW = Duration.ofSeconds(5);
  private static final Duration FIRST_ROUTE = Duration.ofSeconds(30);

  @TempDir Path dir;

  private MockCluster cluster;
  private AgentHarness agent;
  private XdsBackends backends;
  private XdsBackends local;
  private final List<ManagedChannel> channels = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    cluster = new MockCluster();
    backends = XdsBackends.start("a", "b");
    agent = XdsAgent.start(cluster.url(), dir.resolve("rs.sock"), 0);
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
    if (local != null) {
      local.close();
    }
    if (cluster != null) {
      cluster.close();
    }
    if (agent != null) {
      agent.close();
    }
  }

  @Test
  void aHeadlessServiceWithPortsRoutesItsServicePortToThePods() throws Exception {
    Service db = XdsObjects.service("shop", "db", XdsObjects.port("http", 8080));
    db.getSpec().setClusterIP("None");
    cluster.apply(db);
    slice("db", "a");
    awaitEntry("db", 1);

    ManagedChannel channel = channel("xds:///db.shop:8080");
    assertThat(awaitAnswer(channel)).isEqualTo("a");
  }

  @Test
  void aHeadlessServiceWithoutPortsRoutesAPortNumberToThePodsOwnPort() throws Exception {
    Service db = XdsObjects.service("shop", "db");
    db.getSpec().setClusterIP("None");
    db.getSpec().setPorts(List.of());
    cluster.apply(db);
    Backend a = backends.get("a");
    // The controller's slice for a Service without ports: every pod, ports: null.
    cluster.apply(
        Slices.portless(
            "shop",
            "db-a",
            "db",
            List.of(new Slices.Pod("db-a", a.ip(), "node-a", "zone-a", Conditions.READY))));
    Awaitility.await()
        .atMost(FOLLOW)
        .until(
            () -> agent.service("shop", "db").filter(s -> s.endpoints().size() == 1).isPresent());

    ManagedChannel channel = channel("xds:///db.shop:" + a.port());
    assertThat(awaitAnswer(channel)).isEqualTo("a");
    assertThat(calls(channel, 5)).containsOnly("a");
  }

  @Test
  void anExternalNameServiceIsALogicalDnsClusterAndNotFoundInTheRegistry() throws Exception {
    local = XdsBackends.startOn("external", "127.0.0.1");
    Backend external = local.get("external");
    cluster.apply(externalName("ext", "localhost"));

    ManagedChannel channel = channel("xds:///ext.shop:" + external.port());
    assertThat(awaitAnswer(channel)).isEqualTo("external");

    try (GrpcJavaClient registry = new GrpcJavaClient(agent.socket())) {
      assertThatThrownBy(() -> registry.resolve("shop", "ext"))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> {
                assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
                assertThat(e.getStatus().getDescription())
                    .contains("ExternalName")
                    .contains("localhost");
              });
      // List carries it with no endpoints (and its external name: HttpApiTest, OneJsonMapping).
      var listed =
          registry.list("shop").getServicesList().stream()
              .filter(s -> s.getName().equals("ext"))
              .findFirst()
              .orElseThrow();
      assertThat(listed.getEndpointsList()).isEmpty();
    }
  }

  @Test
  void anExternalNameLongerThanADnsNameIsNotServedAndCountedOnce() throws Exception {
    cluster.apply(externalName("long", "a".repeat(254)));
    cluster.apply(externalName("ext", "db.example.com"));
    Awaitility.await().atMost(FOLLOW).until(() -> agent.service("shop", "ext").isPresent());
    Awaitility.await()
        .atMost(FOLLOW)
        .until(
            () ->
                agent.counter("routesync.objects.skipped", "reason", "invalid_external_name") == 1);
    assertThat(agent.service("shop", "long")).isEmpty();
  }

  @Test
  void aClustersetNameIsNeverServedNorRoutedToTheLocalService() throws Exception {
    cluster.apply(XdsObjects.service("shop", "cart", XdsObjects.port("http", 8080)));
    slice("cart", "a");
    awaitEntry("cart", 1);

    ManagedChannel channel = channel("xds:///cart.shop.svc.clusterset.local:8080");
    // The listener is never sent: grpc-java gives up on it when its resource timer (15 s) ends,
    // and fails calls with UNAVAILABLE; until then calls wait.
    StatusRuntimeException failed =
        Awaitility.await()
            .atMost(FIRST_ROUTE)
            .until(
                () -> failure(channel),
                f -> f != null && f.getStatus().getCode() != Status.Code.DEADLINE_EXCEEDED);
    assertThat(failed.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(failed.getStatus().getDescription())
        .contains("LDS resource cart.shop.svc.clusterset.local:8080")
        .contains("Timed out waiting for resource");
    assertThat(backends.get("a").calls().get()).isZero();
    assertThat(agent.counter("routesync.xds.refused.names", "type", "lds")).isEqualTo(1);

    // The local spelling still routes.
    assertThat(awaitAnswer(channel("xds:///cart.shop.svc.cluster.local:8080"))).isEqualTo("a");

    try (GrpcJavaClient registry = new GrpcJavaClient(agent.socket())) {
      assertThatThrownBy(() -> registry.resolve("shop", "cart.shop.svc.clusterset.local"))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> {
                assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
                assertThat(e.getStatus().getDescription()).contains("MCS ServiceImports");
              });
    }
  }

  private static Service externalName(String name, String host) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace("shop")
        .withName(name)
        .withLabels(Map.of(Slices.MESH_LABEL, "true"))
        .endMetadata()
        .withNewSpec()
        .withType("ExternalName")
        .withExternalName(host)
        .endSpec()
        .build();
  }

  /** The slice of {@code service} for backend {@code id}'s pod, on node-a in zone-a. */
  private void slice(String service, String id) {
    Backend backend = backends.get(id);
    cluster.apply(
        XdsObjects.slice(
            "shop",
            service + "-" + id,
            service,
            backend.port(),
            List.of(
                new Slices.Pod(
                    service + "-" + id, backend.ip(), "node-a", "zone-a", Conditions.READY))));
  }

  private void awaitEntry(String service, int endpoints) {
    Awaitility.await()
        .atMost(FOLLOW)
        .until(
            () ->
                agent
                    .service("shop", service)
                    .filter(s -> s.endpoints().size() == endpoints && !s.servicePorts().isEmpty())
                    .isPresent());
  }

  private ManagedChannel channel(String target) throws Exception {
    XdsBootstrap bootstrap = XdsBootstrap.write(dir, XdsAgent.serverUri(agent), "node-a", "zone-a");
    ManagedChannel channel = bootstrap.channel(target);
    channels.add(channel);
    return channel;
  }

  private static String awaitAnswer(ManagedChannel channel) {
    return Awaitility.await()
        .atMost(FIRST_ROUTE)
        .ignoreExceptions()
        .until(() -> XdsBackends.who(channel, CALL_DEADLINE), answer -> answer != null);
  }

  private static List<String> calls(ManagedChannel channel, int count) {
    List<String> answered = new ArrayList<>();
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
