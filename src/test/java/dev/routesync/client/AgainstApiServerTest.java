package dev.routesync.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.routesync.testing.ServeHarness;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The commands against the agent's real API server, over a table the test publishes. */
@Timeout(60)
class AgainstApiServerTest {

  private ServeHarness serve;

  @BeforeEach
  void start() throws Exception {
    serve = new ServeHarness();
    serve.put("shop", "cart", 3);
    serve.put("billing", "ledger", 1);
  }

  @AfterEach
  void stop() throws Exception {
    serve.close();
  }

  private Cli.Result run(String args) {
    return Cli.run((args + " --socket " + serve.socket()).split(" "));
  }

  @Test
  void getServicesListsWhatTheAgentServesInKeyOrder() {
    Cli.Result result = run("get services");

    assertThat(result.exitCode()).isEqualTo(0);
    assertThat(result.err()).isEmpty();
    List<String> lines = result.out().lines().toList();
    assertThat(lines).hasSize(3);
    assertThat(lines.get(0)).matches("NAMESPACE +NAME +ENDPOINTS +READY +PORTS +VERSION");
    // The Services are not known here (no Services watch behind this table): the port names the
    // endpoints carry.
    assertThat(lines.get(1)).matches("billing +ledger +1 +1 +http=1/1 +\\d+");
    assertThat(lines.get(2)).matches("shop +cart +3 +3 +http=3/3 +\\d+");
  }

  @Test
  void getEndpointsShowsEachEndpointOfTheService() {
    Cli.Result result = run("get endpoints shop/cart");

    assertThat(result.exitCode()).isEqualTo(0);
    assertThat(result.out().lines().skip(1))
        .containsExactly(
            "10.0.0.1   http:8080/TCP   node-a   zone-a   cart-0   true    true      false",
            "10.0.0.2   http:8080/TCP   node-a   zone-a   cart-1   true    true      false",
            "10.0.0.3   http:8080/TCP   node-a   zone-a   cart-2   true    true      false");
  }

  @Test
  void getEndpointsOfAnUnknownServiceSaysItIsNotFound() {
    Cli.Result result = run("get endpoints shop/nope");

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.err()).isEqualTo("routesync: service shop/nope not found\n");
  }

  @Test
  void watchFollowsChangesAndEndsCleanlyWhenTheAgentDrains() throws Exception {
    CompletableFuture<Cli.Result> watching =
        CompletableFuture.supplyAsync(() -> run("watch -n shop"));
    await().atMost(Duration.ofSeconds(10)).until(() -> serve.server().watchStreams() == 1);

    serve.put("shop", "cart", 5);
    serve.put("billing", "ledger", 2); // another namespace: not sent
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> serve.counter("routesync.watch.messages") >= 2);
    serve.shutdown(Duration.ofSeconds(5));

    Cli.Result result = watching.get(10, TimeUnit.SECONDS);
    assertThat(result.exitCode()).isEqualTo(0);
    assertThat(result.err()).isEmpty();
    List<String> lines = result.out().lines().toList();
    assertThat(lines).hasSize(4);
    assertThat(lines.get(0)).matches("v\\d+ reset services=1");
    assertThat(lines.get(1)).isEqualTo("  ~ shop/cart endpoints=3 ports=http=3/3");
    assertThat(lines.get(2)).matches("v\\d+ update upserted=1 removed=0");
    assertThat(lines.get(3)).isEqualTo("  ~ shop/cart endpoints=5 ports=http=5/5");
  }
}
