package dev.routesync.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.api.v1.ListRequest;
import dev.routesync.api.v1.ResolveRequest;
import dev.routesync.api.v1.WatchRequest;
import io.vertx.grpc.common.GrpcStatus;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * kubectl habits: every client command takes {@code -n NAMESPACE} / {@code --namespace NAMESPACE},
 * and {@code get endpoints} takes {@code NAME -n NAMESPACE} as well as {@code NAMESPACE/NAME}.
 */
@Timeout(30)
class NamespaceFormsTest {

  @TempDir Path dir;

  private FakeAgent agent;

  private FakeAgent agent() {
    agent = new FakeAgent(dir.resolve("agent.sock"));
    return agent;
  }

  private Cli.Result run(String args) {
    return Cli.run((args + " --socket " + agent.socket).split(" "));
  }

  @AfterEach
  void stop() throws Exception {
    if (agent != null) {
      agent.close();
    }
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "get endpoints shop/cart",
        "get endpoints cart -n shop",
        "get endpoints -n shop cart",
        "get endpoints cart --namespace shop",
        "get endpoints cart --namespace=shop",
        "get ep cart -nshop",
        "get endpoints shop/cart -n shop"
      })
  void getEndpointsResolvesTheSameServiceInEveryForm(String args) throws Exception {
    agent().services(Messages.cart()).start();

    Cli.Result result = run(args);

    assertThat(result.exitCode()).as(result.err()).isZero();
    assertThat(result.out()).isEqualTo(EndpointTable.render(Messages.cart()));
    assertThat(agent.requests)
        .containsExactly(ResolveRequest.newBuilder().setNamespace("shop").setName("cart").build());
  }

  @Test
  void aServiceNamedWithNThatIsNotFoundIsNamedInFull() throws Exception {
    agent().services(Messages.cart()).start();

    Cli.Result result = run("get endpoints nope -n shop");

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.err()).isEqualTo("routesync: service shop/nope not found\n");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "get services -n shop",
        "get svc --namespace shop",
        "get services --namespace=shop"
      })
  void getServicesFiltersByTheNamespaceInEveryForm(String args) throws Exception {
    agent().list(Messages.list()).start();

    Cli.Result result = run(args);

    assertThat(result.exitCode()).as(result.err()).isZero();
    assertThat(agent.requests)
        .containsExactly(ListRequest.newBuilder().setNamespace("shop").build());
  }

  @ParameterizedTest
  @ValueSource(strings = {"watch -n shop", "watch --namespace shop", "watch --namespace=shop"})
  void watchFiltersByTheNamespaceInEveryForm(String args) throws Exception {
    agent().watch(GrpcStatus.OK, null, Messages.snapshot()).start();

    Cli.Result result = run(args);

    assertThat(result.exitCode()).as(result.err()).isZero();
    // watch asks with a List of the same namespace first, to say at once if the agent is unsynced.
    assertThat(agent.requests)
        .containsExactly(
            ListRequest.newBuilder().setNamespace("shop").build(),
            WatchRequest.newBuilder().setNamespace("shop").build());
  }
}
