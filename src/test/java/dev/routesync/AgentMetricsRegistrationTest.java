package dev.routesync;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import dev.routesync.serve.ConnectionLimits;
import dev.routesync.testing.AgentHarness;
import dev.routesync.testing.LogCapture;
import dev.routesync.testing.MockCluster;
import dev.routesync.testing.RawConnection;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * fabric8 opens two Vert.x clients on the agent's Vert.x (requests and watch websockets), and the
 * agent two HTTP servers (socket, admin). Each registers Vert.x's gauges; with the same name and
 * tags, Micrometer warned ("This Gauge has been already registered": at every start for the
 * clients, at the first admin request for the servers) and their counts were merged.
 */
class AgentMetricsRegistrationTest {

  @Test
  void startsWithoutADuplicateMeterAndNamesEachKubernetesClient() throws Exception {
    // Micrometer logs the first duplicate at WARN and later ones at DEBUG, once per JVM: listen
    // at DEBUG so a duplicate is seen whichever test met it first.
    try (LogCapture micrometer = new LogCapture("io.micrometer", Level.DEBUG);
        MockCluster cluster = new MockCluster();
        AgentHarness agent =
            AgentHarness.start(cluster.url(), freePort(), ConnectionLimits.DEFAULT)) {
      // Both HTTP servers (socket and admin) register their gauges as they serve, twice each.
      for (int round = 0; round < 2; round++) {
        for (RawConnection connection :
            List.of(
                RawConnection.unix(agent.socket()), RawConnection.tcp(agent.agent().adminPort()))) {
          try (connection) {
            assertThat(
                    connection
                        .write("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                        .readToEnd(Duration.ofSeconds(5)))
                .startsWith("HTTP/1.1 ");
          }
        }
      }
      // Vert.x re-registers its own gauges per client and per connection by design (the
      // production logback.xml filters Micrometer's warning about those); ours, never.
      assertThat(micrometer.lines())
          .filteredOn(line -> line.contains("already registered"))
          .allMatch(line -> line.contains("MeterId{name='vertx."));
      var registry = agent.agent().registry();
      assertThat(registry.find("vertx.http.server.active.connections").gauges()).hasSize(2);
      assertThat(
              registry
                  .find("vertx.http.client.active.connections")
                  .tag("client_name", "kubernetes-api")
                  .gauge())
          .isNotNull();
      assertThat(
              registry
                  .find("vertx.http.client.active.connections")
                  .tag("client_name", "kubernetes-watch")
                  .gauge())
          .isNotNull();
    }
  }

  private static int freePort() throws Exception {
    try (ServerSocket probe = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return probe.getLocalPort();
    }
  }
}
