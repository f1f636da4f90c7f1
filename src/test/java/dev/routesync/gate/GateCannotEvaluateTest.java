package dev.routesync.gate;

import static dev.routesync.gate.GateObjects.NS;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exit code 3: the gate cannot judge, and says which call failed, as RBAC words it, so the pipeline
 * owner knows which Role or which address to fix.
 */
@Timeout(60)
class GateCannotEvaluateTest {

  @TempDir Path dir;

  @Test
  void anUnreachableApiServerIsExitCodeThreeNamingTheAddress() throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closedPort = socket.getLocalPort();
    } // nothing listens there any more: connection refused
    String server = "http://127.0.0.1:" + closedPort;
    Path kubeconfig = GateCli.kubeconfig(dir, server);

    GateCli.Result result =
        GateCli.run(
            "gate",
            "-n",
            NS,
            "--service",
            "quote",
            "--request-timeout",
            "2s",
            "--kubeconfig",
            kubeconfig.toString());

    assertThat(result.exitCode()).as(result.err()).isEqualTo(3);
    assertThat(result.out())
        .isEqualTo(
            "cannot evaluate: cannot list pods in namespace shop: the API server at "
                + server
                + " is unreachable: connection refused\n");
  }

  @Test
  void anApiServerThatNeverAnswersIsExitCodeThreeAfterTheRequestTimeout() throws Exception {
    // The kernel completes the connection (backlog), but nothing ever reads or answers.
    try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      String server = "http://127.0.0.1:" + silent.getLocalPort();
      Path kubeconfig = GateCli.kubeconfig(dir, server);

      long start = System.nanoTime();
      GateCli.Result result =
          GateCli.run(
              "gate",
              "-n",
              NS,
              "--service",
              "quote",
              "--request-timeout",
              "500ms",
              "--kubeconfig",
              kubeconfig.toString());

      assertThat(result.exitCode()).as(result.err()).isEqualTo(3);
      assertThat(result.out())
          .isEqualTo(
              "cannot evaluate: cannot list pods in namespace shop: the API server at "
                  + server
                  + " did not answer in time (--request-timeout)\n");
      assertThat(java.time.Duration.ofNanos(System.nanoTime() - start))
          .isLessThan(java.time.Duration.ofSeconds(10));
    }
  }

  @Test
  void aForbiddenListIsExitCodeThreeNamingTheVerbAndTheResource() throws Exception {
    GateCli.Result result =
        againstForbidding(
            path -> path.startsWith("/apis/discovery.k8s.io/v1/namespaces/shop/endpointslices"));

    assertThat(result.exitCode()).as(result.err()).isEqualTo(3);
    assertThat(result.out())
        .isEqualTo(
            "cannot evaluate: cannot list endpointslices.discovery.k8s.io in namespace shop:"
                + " forbidden\n");
    assertThat(result.err())
        .endsWith(
            "gate: cannot evaluate: cannot list endpointslices.discovery.k8s.io in namespace"
                + " shop: forbidden\n");
  }

  @Test
  void aForbiddenWatchIsExitCodeThreeToo() throws Exception {
    GateCli.Result result =
        againstForbidding(
            path ->
                path.startsWith("/api/v1/namespaces/shop/services") && path.contains("watch=true"));

    assertThat(result.exitCode()).as(result.err()).isEqualTo(3);
    assertThat(result.out())
        .isEqualTo("cannot evaluate: cannot watch services in namespace shop: forbidden\n");
  }

  @Test
  void jsonSaysErrorWithNoServices() throws Exception {
    GateCli.Result result =
        againstForbidding(path -> path.startsWith("/api/v1/namespaces/shop/pods"), "-o", "json");

    assertThat(result.exitCode()).isEqualTo(3);
    assertThat(new io.vertx.core.json.JsonObject(result.out()).getMap())
        .containsEntry("result", "error")
        .containsEntry("message", "cannot evaluate: cannot list pods in namespace shop: forbidden")
        .containsKey("elapsedMillis")
        .containsEntry("services", java.util.List.of());
  }

  /**
   * Runs the gate against a CRUD mock whose answer to every request whose path {@code forbidden}
   * matches is 403 with a Status, as an API server answers a request RBAC denies.
   */
  private GateCli.Result againstForbidding(Predicate<String> forbidden, String... extra)
      throws Exception {
    KubernetesMixedDispatcher crud = new KubernetesMixedDispatcher(new HashMap<>());
    String status =
        Serialization.asJson(
            new StatusBuilder()
                .withStatus("Failure")
                .withReason("Forbidden")
                .withCode(403)
                .withMessage("forbidden by the test")
                .build());
    Dispatcher dispatcher =
        new Dispatcher() {
          @Override
          public MockResponse dispatch(RecordedRequest request) {
            if (forbidden.test(request.getPath())) {
              return new MockResponse().setResponseCode(403).setBody(status);
            }
            return crud.dispatch(request);
          }
        };
    KubernetesMockServer server =
        new KubernetesMockServer(
            new Context(Serialization.jsonMapper()),
            new MockWebServer(),
            new HashMap<>(),
            dispatcher,
            /* useHttps= */ false);
    server.init(InetAddress.getLoopbackAddress(), 0);
    WatchCloseSwallowingProxy proxy = new WatchCloseSwallowingProxy(server.getPort());
    try {
      Path kubeconfig = GateCli.kubeconfig(dir, proxy.url());
      java.util.List<String> args =
          new java.util.ArrayList<>(
              java.util.List.of(
                  "gate",
                  "-n",
                  NS,
                  "-l",
                  "tier=front",
                  "--allow-empty",
                  "--kubeconfig",
                  kubeconfig.toString()));
      args.addAll(java.util.List.of(extra));
      return GateCli.run(args.toArray(String[]::new));
    } finally {
      proxy.close();
      // As MockCluster: destroying can wait on the mock's own blocked event loop.
      Thread destroyer = new Thread(server::destroy, "mock-destroy");
      destroyer.setDaemon(true);
      destroyer.start();
    }
  }
}
