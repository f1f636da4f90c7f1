package dev.routesync.client;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.util.JsonFormat;
import dev.routesync.api.v1.ListRequest;
import dev.routesync.api.v1.ListResponse;
import dev.routesync.api.v1.ResolveRequest;
import dev.routesync.api.v1.ServiceEndpoints;
import dev.routesync.api.v1.WatchEvent;
import dev.routesync.api.v1.WatchRequest;
import io.vertx.grpc.common.GrpcStatus;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The commands end to end, against a fake Registry on a real Unix socket. */
@Timeout(30)
class FakeAgentTest {

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

  @Test
  void getServicesPrintsEveryServiceAsAnAlignedTable() throws Exception {
    agent().list(Messages.list()).start();

    Cli.Result result = run("get services");

    assertThat(result.exitCode()).isEqualTo(0);
    assertThat(result.err()).isEmpty();
    assertThat(result.out())
        .isEqualTo(
            """
            NAMESPACE   NAME         ENDPOINTS   READY   PORTS                VERSION
            billing     ledger-api   0           0       <none>               7
            shop        cart         3           2       admin=2/2,http=2/2   40
            """);
    assertThat(agent.requests).containsExactly(ListRequest.getDefaultInstance());
  }

  @Test
  void getServicesAsksTheAgentForTheNamespaceGivenWithN() throws Exception {
    agent().list(Messages.list()).start();

    run("get svc -n shop");

    assertThat(agent.requests)
        .containsExactly(ListRequest.newBuilder().setNamespace("shop").build());
  }

  @Test
  void getServicesInJsonPrintsTheAgentsAnswerAsIs() throws Exception {
    agent().list(Messages.list()).start();

    Cli.Result result = run("get services -o json");

    assertThat(result.exitCode()).isEqualTo(0);
    ListResponse.Builder parsed = ListResponse.newBuilder();
    JsonFormat.parser().merge(result.out(), parsed);
    assertThat(parsed.build()).isEqualTo(Messages.list());
  }

  @Test
  void getServicesSaysSoOnStderrWhenThereIsNone() throws Exception {
    agent().list(ListResponse.newBuilder().setVersion(9).build()).start();

    Cli.Result result = run("get services -n empty");

    assertThat(result.exitCode()).isEqualTo(0);
    assertThat(result.out()).isEmpty();
    assertThat(result.err()).isEqualTo("No services found in namespace empty.\n");
  }

  @Test
  void aFailedCallPrintsTheStatusInOneLineAndExitsWithOne() throws Exception {
    agent().failList(GrpcStatus.UNAVAILABLE).start();

    Cli.Result result = run("get services");

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.out()).isEmpty();
    assertThat(result.err())
        .isEqualTo("routesync: the agent on " + agent.socket + " answered UNAVAILABLE\n");
  }

  @Test
  void getEndpointsPrintsOneServicesEndpoints() throws Exception {
    agent().services(Messages.cart()).start();

    Cli.Result result = run("get endpoints shop/cart");

    assertThat(result.exitCode()).isEqualTo(0);
    assertThat(result.err()).isEmpty();
    assertThat(result.out()).isEqualTo(EndpointTable.render(Messages.cart()));
    assertThat(result.out()).startsWith("IP          PORTS                          NODE");
    assertThat(agent.requests)
        .containsExactly(ResolveRequest.newBuilder().setNamespace("shop").setName("cart").build());
  }

  @Test
  void getEndpointsInJsonPrintsTheService() throws Exception {
    agent().services(Messages.cart()).start();

    Cli.Result result = run("get ep shop/cart -o JSON");

    ServiceEndpoints.Builder parsed = ServiceEndpoints.newBuilder();
    JsonFormat.parser().merge(result.out(), parsed);
    assertThat(parsed.build()).isEqualTo(Messages.cart());
  }

  @Test
  void getEndpointsSaysTheServiceIsNotFoundAndExitsWithOne() throws Exception {
    agent().services(Messages.cart()).start();

    Cli.Result result = run("get endpoints shop/nope");

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.out()).isEmpty();
    assertThat(result.err()).isEqualTo("routesync: service shop/nope not found\n");
  }

  @Test
  void getEndpointsOfAServiceWithoutEndpointsSaysSoOnStderr() throws Exception {
    agent().services(Messages.service("shop", "idle", 5)).start();

    Cli.Result result = run("get endpoints shop/idle");

    assertThat(result.exitCode()).isEqualTo(0);
    assertThat(result.out()).isEmpty();
    assertThat(result.err()).isEqualTo("No endpoints for service shop/idle.\n");
  }

  @Test
  void watchPrintsEveryEventAndReturnsWhenTheAgentEndsTheStream() throws Exception {
    agent().watch(GrpcStatus.OK, null, Messages.snapshot(), Messages.change()).start();

    Cli.Result result = run("watch -n shop");

    assertThat(result.exitCode()).isEqualTo(0);
    assertThat(result.err()).isEmpty();
    assertThat(result.out())
        .isEqualTo(
            """
            v42 reset services=2
              ~ billing/ledger-api endpoints=0
              ~ shop/cart endpoints=3 ports=admin=2/2,http=2/2
            v43 update upserted=1 removed=1
              ~ shop/cart endpoints=1
              - billing/ledger-api
            """);
    // First a List of the same scope: it fails at once if the agent has not synced yet.
    assertThat(agent.requests)
        .containsExactly(
            ListRequest.newBuilder().setNamespace("shop").build(),
            WatchRequest.newBuilder().setNamespace("shop").build());
  }

  @Test
  void watchSaysWhenTheTableTurnsStaleAndFreshAgain() throws Exception {
    WatchEvent stale = WatchEvent.newBuilder().setVersion(42).setStale(true).build();
    WatchEvent fresh = WatchEvent.newBuilder().setVersion(42).build();
    agent().watch(GrpcStatus.OK, null, Messages.snapshot(), stale, fresh).start();

    Cli.Result result = run("watch -n shop");

    assertThat(result.exitCode()).as(result.err()).isEqualTo(0);
    assertThat(result.out())
        .endsWith(
            """
            # stale: not yet confirmed by the Kubernetes API server
            v42 update upserted=0 removed=0
            # fresh: confirmed by the Kubernetes API server again
            v42 update upserted=0 removed=0
            """);
  }

  @Test
  void watchInJsonPrintsOneEventPerLine() throws Exception {
    agent().watch(GrpcStatus.OK, null, Messages.snapshot(), Messages.change()).start();

    Cli.Result result = run("watch -o json");

    assertThat(result.exitCode()).isEqualTo(0);
    List<String> lines = result.out().lines().toList();
    assertThat(lines).hasSize(2);
    List<WatchEvent> parsed = new java.util.ArrayList<>();
    for (String line : lines) {
      WatchEvent.Builder event = WatchEvent.newBuilder();
      JsonFormat.parser().merge(line, event);
      parsed.add(event.build());
    }
    assertThat(parsed).containsExactly(Messages.snapshot(), Messages.change());
  }

  @Test
  void watchEndedByTheAgentWithAnErrorPrintsItAfterTheEventsAndExitsWithOne() throws Exception {
    agent().watch(GrpcStatus.UNAVAILABLE, "agent is shutting down", Messages.snapshot()).start();

    Cli.Result result = run("watch");

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.out()).startsWith("v42 reset services=2\n");
    assertThat(result.err())
        .isEqualTo(
            "routesync: the watch on "
                + agent.socket
                + " ended with UNAVAILABLE: agent is shutting down\n");
  }

  @Test
  void watchSaysTheAgentClosedTheConnectionWhenItGoesAwayMidStream() throws Exception {
    agent().watchThenHangUp(Messages.snapshot()).start();

    Cli.Result result = run("watch");

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.out()).startsWith("v42 reset services=2\n");
    assertThat(result.err())
        .isEqualTo("routesync: the agent on " + agent.socket + " closed the connection\n");
  }

  @Test
  void aServerWithoutTheGrpcApiIsReportedInOneLine() throws Exception {
    agent()
        .start(
            request ->
                request
                    .response()
                    .setStatusCode(404)
                    .putHeader("content-type", "application/json")
                    .end("{\"status\": 404, \"error\": \"not found\"}"));

    Cli.Result result = run("get services");

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.err())
        .isEqualTo(
            "routesync: the server on "
                + agent.socket
                + " does not serve the routesync gRPC API (an agent older than this client?)\n");
  }
}
