package dev.routesync;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.config.Source;
import dev.routesync.testing.AgentHarness;
import dev.routesync.testing.Http1;
import dev.routesync.testing.MockCluster;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.net.http.HttpResponse;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An agent whose socket file was removed (or replaced) cannot be reached by any new sidecar, so it
 * must not say it is ready.
 */
@Timeout(60)
class SocketFileReadinessTest {

  private MockCluster cluster;
  private AgentHarness agent;
  private int adminPort;

  @BeforeEach
  void start() throws Exception {
    cluster = new MockCluster();
    try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      adminPort = probe.getLocalPort();
    }
    agent =
        AgentHarness.start(
            cluster.url(),
            Source.ENDPOINTSLICES,
            AgentHarness.FAST,
            Duration.ofSeconds(1),
            adminPort);
  }

  @AfterEach
  void stop() throws Exception {
    cluster.close(); // first: see MockCluster#url
    agent.close();
  }

  private HttpResponse<String> readyz() throws Exception {
    // The request timeout alone bounds only the headers; Http1 bounds the whole exchange.
    return Http1.get("http://127.0.0.1:" + adminPort + "/readyz");
  }

  @Test
  void readinessFailsOnceTheSocketFileIsDeleted() throws Exception {
    assertThat(readyz().statusCode()).isEqualTo(200);

    Files.delete(agent.socket());

    HttpResponse<String> answer = readyz();
    assertThat(answer.statusCode()).isEqualTo(503);
    assertThat(answer.body()).contains("socket file " + agent.socket() + " was removed");
    assertThat(agent.agent().readiness().isReady()).isFalse();
  }

  @Test
  void readinessFailsOnceTheSocketFileIsReplaced() throws Exception {
    assertThat(readyz().statusCode()).isEqualTo(200);
    Path socket = agent.socket();
    Files.delete(socket);
    try (ServerSocketChannel other = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      other.bind(UnixDomainSocketAddress.of(socket));

      HttpResponse<String> answer = readyz();
      assertThat(answer.statusCode()).isEqualTo(503);
      assertThat(answer.body()).contains("was replaced by another file");
    }
  }
}
