package dev.routesync;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import dev.routesync.testing.AgentHarness;
import dev.routesync.testing.LogCapture;
import dev.routesync.testing.MockCluster;
import org.junit.jupiter.api.Test;

/**
 * fabric8 opens two Vert.x clients on the agent's Vert.x (requests and watch websockets). Each
 * registers Vert.x's client gauges; with the same name and tags, Micrometer warned at every start
 * ("This Gauge has been already registered") and the two clients' counts were merged.
 */
class AgentMetricsRegistrationTest {

  @Test
  void startsWithoutADuplicateMeterAndNamesEachKubernetesClient() throws Exception {
    // Micrometer logs the first duplicate at WARN and later ones at DEBUG, once per JVM: listen
    // at DEBUG so a duplicate is seen whichever test met it first.
    try (LogCapture micrometer = new LogCapture("io.micrometer", Level.DEBUG);
        MockCluster cluster = new MockCluster();
        AgentHarness agent = AgentHarness.start(cluster.url())) {
      assertThat(micrometer.lines()).noneMatch(line -> line.contains("already registered"));
      var registry = agent.agent().registry();
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
}
