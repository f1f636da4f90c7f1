package dev.routesync.client;

import static dev.routesync.testing.Slices.slice;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.routesync.testing.AgentHarness;
import dev.routesync.testing.MockCluster;
import dev.routesync.testing.Slices.Pod;
import dev.routesync.testing.TcpProxy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every client command against a real agent that has not synced (its API server is unreachable):
 * one line that says so, exit code 1; never "No services found" with success.
 */
@Timeout(90)
class NotSyncedAgentTest {

  private MockCluster cluster;
  private TcpProxy proxy;
  private AgentHarness agent;

  @BeforeEach
  void start() throws Exception {
    cluster = new MockCluster();
    cluster.apply(slice("shop", "web-a", "web", true, 8080, List.of(Pod.ready("w", "10.0.0.1"))));
    proxy = new TcpProxy(cluster.port());
    proxy.cut();
    agent = AgentHarness.launch(proxy.url(), Duration.ofMillis(300)).cutOnClose(proxy);
    await()
        .atMost(Duration.ofSeconds(15))
        .until(() -> agent.counter("routesync.relists", "reason", "failure") >= 1);
  }

  @AfterEach
  void stop() throws Exception {
    agent.close();
    proxy.close();
    cluster.close();
  }

  private Cli.Result run(String command) throws Exception {
    String[] args = (command + " --socket " + agent.socket()).split(" ");
    // Bounded: before the fix, watch waited forever on an empty snapshot.
    return CompletableFuture.supplyAsync(() -> Cli.run(args)).get(30, TimeUnit.SECONDS);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "get services",
        "get services -n shop -o json",
        "get endpoints shop/web",
        "watch",
        "watch -n shop -o json"
      })
  void saysTheAgentHasNotSyncedAndExitsOne(String command) throws Exception {
    Cli.Result result = run(command);

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.out()).isEmpty();
    assertThat(result.err())
        .isEqualTo(
            "routesync: the agent on "
                + agent.socket()
                + " has not synced with the Kubernetes API server yet"
                + " (it serves no routes until its first list succeeds; see its log and /readyz)\n");
  }

  @Test
  void answersOnceTheAgentHasSynced() throws Exception {
    proxy.restore(cluster.port());
    agent.awaitInitialSync();

    Cli.Result result = run("get services");

    assertThat(result.exitCode()).isZero();
    assertThat(result.out()).contains("shop").contains("web");
  }
}
