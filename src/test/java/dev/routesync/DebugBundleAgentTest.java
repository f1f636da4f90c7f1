package dev.routesync;

import static dev.routesync.testing.Slices.slice;
import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.config.DebugListener;
import dev.routesync.testing.AgentHarness;
import dev.routesync.testing.MockCluster;
import dev.routesync.testing.Slices.Pod;
import io.vertx.core.json.JsonObject;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's debug listener serves a bundle of its own table and its effective configuration, with
 * the API server connection's facts.
 */
@Timeout(60)
class DebugBundleAgentTest {

  @TempDir Path folder;

  @Test
  void theAgentsBundleHoldsItsTableAndItsConfiguration() throws Exception {
    try (MockCluster cluster = new MockCluster()) {
      cluster.apply(
          slice("shop", "cart-abc", "cart", true, 8080, List.of(Pod.ready("cart-0", "10.1.0.1"))));
      int port = freePort();
      try (AgentHarness agent =
          AgentHarness.startWith(
              cluster.url(), c -> c.withDebug(new DebugListener("127.0.0.1", port)), 0)) {
        HttpResponse<Path> response =
            HttpClient.newBuilder()
                .connectTimeout(Duration.ofSeconds(5))
                .build()
                .sendAsync(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/debug/bundle"))
                        .timeout(Duration.ofSeconds(20))
                        .build(),
                    HttpResponse.BodyHandlers.ofFile(folder.resolve("bundle.tar.gz")))
                .get(30, TimeUnit.SECONDS);
        assertThat(response.statusCode()).isEqualTo(200);

        Path bundle = extract();
        assertThat(Files.readString(bundle.resolve("services.json"))).contains("\"cart\"");
        JsonObject config = new JsonObject(Files.readString(bundle.resolve("config.json")));
        assertThat(config.getJsonObject("agent").getString("socket"))
            .isEqualTo(agent.socket().toString());
        assertThat(config.getJsonObject("agent").getJsonObject("debug").getInteger("port"))
            .isEqualTo(port);
        assertThat(config.getJsonObject("kubeconfig").getString("server"))
            .startsWith(cluster.url().replaceAll("/$", ""));
        assertThat(config.getJsonObject("kubeconfig").getString("auth")).isNotBlank();
        assertThat(Files.readString(bundle.resolve("metrics.txt"))).contains("routesync_");
      }
    }
  }

  private Path extract() throws Exception {
    Process tar =
        new ProcessBuilder("tar", "-xzf", "bundle.tar.gz")
            .directory(folder.toFile())
            .redirectErrorStream(true)
            .start();
    assertThat(tar.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(tar.exitValue()).as(new String(tar.getInputStream().readAllBytes())).isZero();
    try (Stream<Path> children = Files.list(folder)) {
      return children.filter(Files::isDirectory).findFirst().orElseThrow();
    }
  }

  private static int freePort() throws Exception {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
