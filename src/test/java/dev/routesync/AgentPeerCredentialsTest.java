package dev.routesync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.routesync.serve.PeerPolicy;
import dev.routesync.testing.AgentHarness;
import dev.routesync.testing.MockCluster;
import dev.routesync.testing.RawConnection;
import dev.routesync.testing.SetprivClient;
import io.micrometer.core.instrument.Gauge;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The agent wires {@code --allow-uids}/{@code --allow-gids} into its socket's accept hook. */
@Timeout(60)
class AgentPeerCredentialsTest {

  private static final String REQUEST =
      "GET /v1/services HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
  private static final Duration WAIT = Duration.ofSeconds(10);

  private MockCluster cluster;
  private AgentHarness agent;

  @BeforeEach
  void startCluster() {
    cluster = new MockCluster();
  }

  @AfterEach
  void stop() throws Exception {
    cluster.close(); // first: see MockCluster#url
    if (agent != null) {
      agent.close();
    }
  }

  @Test
  void anAgentAllowingOnlyAnotherUidClosesItsOwnUidsConnectionsUnanswered() throws Exception {
    int other = SetprivClient.ownUid() + 4242;
    agent =
        AgentHarness.startWith(
            cluster.url(), config -> config.withPeers(PeerPolicy.of(List.of(other), List.of())), 0);
    try (RawConnection connection = RawConnection.unix(agent.socket())) {
      try {
        connection.write(REQUEST);
      } catch (IOException closedAlready) {
        // Broken pipe: closed before the request was written.
      }
      assertThat(connection.readToEnd(WAIT)).isEmpty();
    }
    await()
        .atMost(WAIT)
        .until(
            () ->
                agent.counter(
                        "routesync.connections.closed", "listener", "socket", "reason", "peer")
                    == 1);
  }

  @Test
  void anAgentAllowingAnyPeerCountsItsConnectionsByUid() throws Exception {
    String own = String.valueOf(SetprivClient.ownUid());
    agent = AgentHarness.startWith(cluster.url(), config -> config, 0);
    try (RawConnection held = RawConnection.unix(agent.socket())) {
      await()
          .atMost(WAIT)
          .until(
              () -> {
                Gauge gauge =
                    agent.agent().registry().find("routesync.connections").tag("uid", own).gauge();
                return gauge != null && gauge.value() == 1;
              });
    }
  }
}
