package dev.routesync.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.routesync.testing.MockCluster;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.vertx.core.json.JsonObject;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The zone comes from the node's {@code topology.kubernetes.io/zone} label, read from fabric8's
 * CRUD mock API server; every way of not getting it still prints a bootstrap, without a zone, and
 * warns once on stderr.
 */
class ZoneFromNodeTest {

  @TempDir Path dir;

  private MockCluster cluster;
  private Path kubeconfig;

  @BeforeEach
  void start() throws Exception {
    cluster = new MockCluster();
    kubeconfig = BootstrapCli.kubeconfig(dir, cluster.url());
  }

  @AfterEach
  void stop() throws Exception {
    cluster.close();
  }

  private void createNode(String name, String zone) {
    NodeBuilder node = new NodeBuilder().withNewMetadata().withName(name).endMetadata();
    if (zone != null) {
      node.editMetadata().addToLabels("topology.kubernetes.io/zone", zone).endMetadata();
    }
    Node built = node.editMetadata().addToLabels("kubernetes.io/os", "linux").endMetadata().build();
    cluster.client().nodes().resource(built).create();
  }

  private BootstrapCli.Result bootstrap(String... args) {
    String[] all = new String[args.length + 2];
    all[0] = "--kubeconfig";
    all[1] = kubeconfig.toString();
    System.arraycopy(args, 0, all, 2, args.length);
    return BootstrapCli.run(all);
  }

  private static JsonObject locality(String bootstrapJson) {
    return new JsonObject(bootstrapJson).getJsonObject("node").getJsonObject("locality");
  }

  @Test
  void theZoneIsTheNodesTopologyLabel() {
    createNode("node-a", "eu-west-1b");
    createNode("node-b", "eu-west-1c");

    BootstrapCli.Result result = bootstrap("--node-name", "node-a");

    assertThat(result.exitCode()).as(result.err()).isZero();
    assertThat(result.err()).isEmpty();
    assertThat(locality(result.out())).isEqualTo(new JsonObject().put("zone", "eu-west-1b"));
  }

  @Test
  void theEnvoyBootstrapGetsTheZoneToo() {
    createNode("node-a", "eu-west-1b");

    BootstrapCli.Result result = bootstrap("--node-name", "node-a", "--envoy");

    assertThat(locality(result.out())).isEqualTo(new JsonObject().put("zone", "eu-west-1b"));
  }

  @Test
  void theZoneFlagWinsOverTheLabel() {
    createNode("node-a", "eu-west-1b");

    BootstrapCli.Result result = bootstrap("--node-name", "node-a", "--zone", "mine");

    assertThat(locality(result.out())).isEqualTo(new JsonObject().put("zone", "mine"));
  }

  @Test
  void aNodeWithoutTheLabelGivesNoZoneAndAWarning() {
    createNode("node-a", null);

    BootstrapCli.Result result = bootstrap("--node-name", "node-a");

    assertThat(result.exitCode()).isZero();
    assertThat(locality(result.out())).isEqualTo(new JsonObject());
    assertThat(result.err())
        .isEqualTo(
            "routesync bootstrap: warning: no zone in node.locality: node node-a has no"
                + " topology.kubernetes.io/zone label (give --zone to set it)\n");
  }

  @Test
  void anUnknownNodeGivesNoZoneAndAWarning() {
    createNode("node-a", "eu-west-1b");

    BootstrapCli.Result result = bootstrap("--node-name", "node-z");

    assertThat(result.exitCode()).isZero();
    assertThat(locality(result.out())).isEqualTo(new JsonObject());
    assertThat(result.err())
        .isEqualTo(
            "routesync bootstrap: warning: no zone in node.locality: node node-z not found"
                + " (give --zone to set it)\n");
  }

  @Test
  void anUnreachableApiServerGivesNoZoneAndAWarning() throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closedPort = socket.getLocalPort();
    }
    String server = "http://127.0.0.1:" + closedPort;
    kubeconfig = BootstrapCli.kubeconfig(dir, server);

    BootstrapCli.Result result = bootstrap("--node-name", "node-a");

    assertThat(result.exitCode()).isZero();
    assertThat(locality(result.out())).isEqualTo(new JsonObject());
    assertThat(result.err())
        .isEqualTo(
            "routesync bootstrap: warning: no zone in node.locality: the API server at "
                + server
                + "/ is unreachable: connection refused (give --zone to set it)\n");
  }

  @Test
  void aSilentApiServerIsGivenUpAfterTheRequestTimeout() throws Exception {
    // The kernel completes the connection (backlog), but nothing ever reads or answers.
    try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      kubeconfig = BootstrapCli.kubeconfig(dir, "http://127.0.0.1:" + silent.getLocalPort());

      long start = System.nanoTime();
      BootstrapCli.Result result = bootstrap("--node-name", "node-a", "--request-timeout", "500ms");

      assertThat(result.exitCode()).isZero();
      assertThat(locality(result.out())).isEqualTo(new JsonObject());
      assertThat(result.err()).contains("did not answer in time (--request-timeout)");
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
    }
  }

  @Test
  void aForbiddenGetSaysWhichPermissionIsMissing() throws Exception {
    // What the API server answers a service account without get on nodes.
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    byte[] forbidden =
        ("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"message\":\"nodes"
                + " \\\"node-a\\\" is forbidden: User \\\"system:serviceaccount:ex:client\\\""
                + " cannot get resource \\\"nodes\\\" in API group \\\"\\\" at the cluster"
                + " scope\",\"reason\":\"Forbidden\",\"code\":403}")
            .getBytes(StandardCharsets.UTF_8);
    server.createContext(
        "/",
        exchange -> {
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.sendResponseHeaders(403, forbidden.length);
          exchange.getResponseBody().write(forbidden);
          exchange.close();
        });
    server.start();
    try {
      kubeconfig =
          BootstrapCli.kubeconfig(dir, "http://127.0.0.1:" + server.getAddress().getPort());

      BootstrapCli.Result result = bootstrap("--node-name", "node-a");

      assertThat(result.exitCode()).isZero();
      assertThat(locality(result.out())).isEqualTo(new JsonObject());
      assertThat(result.err())
          .isEqualTo(
              "routesync bootstrap: warning: no zone in node.locality: forbidden to get node"
                  + " node-a (its service account needs get on nodes) (give --zone to set it)\n");
    } finally {
      server.stop(0);
    }
  }
}
