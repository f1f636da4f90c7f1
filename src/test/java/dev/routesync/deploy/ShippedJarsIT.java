package dev.routesync.deploy;

import static dev.routesync.testing.AdsClient.CDS;
import static dev.routesync.testing.AdsClient.EDS;
import static dev.routesync.testing.AdsClient.LDS;
import static dev.routesync.testing.AdsClient.RDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.routesync.testing.AdsClient;
import dev.routesync.testing.GrpcJavaClient;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.config.endpoint.v3.LbEndpoint;
import io.envoyproxy.envoy.config.listener.v3.Listener;
import io.envoyproxy.envoy.config.route.v3.RouteConfiguration;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The jars {@code mvn package} builds, run as processes: both keep only the Envoy API messages the
 * agent's classes reach (the shade plugin's minimizeJar), so this proves that set serves every xDS
 * type to an independent client that has the whole Envoy API (grpc-java with the Envoy API's own
 * ADS stub, {@link AdsClient}). The demo's jar carries the same minimized Envoy classes as the
 * image's, and is the one that runs without a cluster. And the image's jar has no demo: it refuses
 * {@code routesync demo} with one line naming the demo's jar.
 *
 * <p>Runs after {@code package} (failsafe); without the jars it is skipped, saying so. It needs no
 * control plane.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ShippedJarsIT {

  private static final Path PROJECT = Path.of(System.getProperty("basedir", "."));
  private static final Path AGENT_JAR = PROJECT.resolve("target/routesync.jar");
  private static final Path DEMO_JAR = PROJECT.resolve("target/routesync-demo.jar");
  private static final Duration START = Duration.ofSeconds(60);

  /** The demo's cart Service (DemoCluster): port 80 named http, pods on 8080. */
  private static final String LISTENER = "cart.shop:80";

  private static final HttpClient PROBES =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(1))
          .build();

  @TempDir Path dir;

  @Test
  void theAgentJarRefusesDemoNamingTheDemoJar() throws Exception {
    assumeBuilt(AGENT_JAR);
    Path out = dir.resolve("out.txt");
    Process process =
        new ProcessBuilder(
                java(),
                "-jar",
                AGENT_JAR.toString(),
                "demo",
                "--socket",
                dir.resolve("s").toString())
            .redirectErrorStream(true)
            .redirectOutput(out.toFile())
            .start();
    try {
      assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("demo in the agent jar ended").isTrue();
    } finally {
      process.destroyForcibly();
    }
    List<String> lines = Files.readAllLines(out, StandardCharsets.UTF_8);
    assertThat(process.exitValue()).as("exit code; output: %s", lines).isEqualTo(2);
    assertThat(lines).singleElement().asString().contains("routesync-demo.jar");
  }

  @Test
  void theMinimizedEnvoyClassesServeLdsRdsCdsAndEds() throws Exception {
    assumeBuilt(DEMO_JAR);
    Path socket = dir.resolve("rs.sock");
    int adminPort = freePort();
    List<String> command = new ArrayList<>();
    command.addAll(List.of(java(), "-jar", DEMO_JAR.toString(), "demo"));
    command.addAll(List.of("--socket", socket.toString(), "--admin-host", "127.0.0.1"));
    command.addAll(List.of("--admin-port", Integer.toString(adminPort)));
    command.addAll(List.of("--state-file", dir.resolve("table.bin").toString()));
    command.add("--churn-every=600000");
    Path log = dir.resolve("demo.log");
    Process demo =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    try {
      Awaitility.await("the demo jar serving (log: " + log + ")")
          .atMost(START)
          .pollInterval(Duration.ofMillis(200))
          .until(() -> !demo.isAlive() || readyz(adminPort) == 200);
      assertThat(demo.isAlive()).as("demo alive; log:%n%s", Files.readString(log)).isTrue();

      try (GrpcJavaClient grpc = new GrpcJavaClient(socket, "localhost");
          AdsClient ads = AdsClient.open(grpc.channel(), AdsClient.node("it-node", "zone-a"))) {
        ads.subscribe(LDS, LISTENER);
        Listener listener = AdsClient.listeners(ads.takeAndAck(LDS)).get(0);
        assertThat(listener.getName()).isEqualTo(LISTENER);
        String cluster = AdsClient.routedCluster(listener);

        ads.subscribe(RDS, LISTENER);
        List<RouteConfiguration> routes =
            AdsClient.resources(ads.takeAndAck(RDS), RouteConfiguration.class);
        assertThat(routes)
            .singleElement()
            .extracting(RouteConfiguration::getName)
            .isEqualTo(LISTENER);
        assertThat(routes.get(0).getVirtualHosts(0).getRoutes(0).getRoute().getCluster())
            .isEqualTo(cluster);

        ads.subscribe(CDS, cluster);
        List<Cluster> clusters = AdsClient.clusters(ads.takeAndAck(CDS));
        assertThat(clusters).singleElement().extracting(Cluster::getName).isEqualTo(cluster);

        ads.subscribe(EDS, cluster);
        List<ClusterLoadAssignment> assignments = AdsClient.assignments(ads.takeAndAck(EDS));
        assertThat(assignments)
            .singleElement()
            .extracting(ClusterLoadAssignment::getClusterName)
            .isEqualTo(cluster);
        List<Integer> ports =
            assignments.get(0).getEndpointsList().stream()
                .flatMap(locality -> locality.getLbEndpointsList().stream())
                .map(LbEndpoint::getEndpoint)
                .map(endpoint -> endpoint.getAddress().getSocketAddress().getPortValue())
                .toList();
        assertThat(ports).as("the cart pods' port").isNotEmpty().containsOnly(8080);
      }
    } finally {
      demo.destroy();
      if (!demo.waitFor(20, TimeUnit.SECONDS)) {
        demo.destroyForcibly();
      }
    }
  }

  private static void assumeBuilt(Path jar) {
    assumeTrue(
        Files.isRegularFile(jar),
        jar
            + " is missing: this test runs the built jar; run 'mvn package' (or 'mvn verify') first");
  }

  private static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  private static int freePort() throws IOException {
    try (ServerSocket probe = new ServerSocket(0)) {
      return probe.getLocalPort();
    }
  }

  private static int readyz(int port) {
    try {
      HttpRequest request =
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/readyz"))
              .timeout(Duration.ofSeconds(2))
              .build();
      return PROBES.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }
}
