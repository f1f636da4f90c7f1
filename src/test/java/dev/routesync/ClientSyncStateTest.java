package dev.routesync;

import static dev.routesync.testing.Slices.slice;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.routesync.api.v1.WatchEvent;
import dev.routesync.api.v1.WatchRequest;
import dev.routesync.testing.AgentHarness;
import dev.routesync.testing.GrpcJavaClient;
import dev.routesync.testing.MockCluster;
import dev.routesync.testing.ResponseRecorder;
import dev.routesync.testing.Slices.Pod;
import dev.routesync.testing.UdsHttp;
import dev.routesync.testing.WatchRecorder;
import dev.routesync.xds.XdsType;
import io.envoyproxy.envoy.config.core.v3.Node;
import io.envoyproxy.envoy.service.discovery.v3.AggregatedDiscoveryServiceGrpc;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryResponse;
import io.grpc.stub.StreamObserver;
import io.micrometer.core.instrument.Timer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Each sidecar's sync state on the agent: {@code GET /v1/clients}, the behind gauge and the
 * propagation histogram, with a grpc-java ADS client that ACKs, stops ACKing, and NACKs, and a
 * grpc-java Watch, against the fabric8 mock.
 */
class ClientSyncStateTest {

  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final String CART = "cart.shop.svc.cluster.local:8080";

  @Test
  void anAdsClientThatStopsAckingIsBehindANackShowsAndAnAckMeasuresThePropagation()
      throws Exception {
    try (MockCluster cluster = new MockCluster()) {
      cluster.apply(
          slice("shop", "cart-a", "cart", true, 8080, List.of(Pod.ready("p-1", "10.0.0.1"))));
      AgentHarness agent = AgentHarness.start(cluster.url());
      try (GrpcJavaClient grpc = new GrpcJavaClient(agent.socket());
          UdsHttp http = new UdsHttp(agent.socket())) {
        ResponseRecorder<DiscoveryResponse> recorder = new ResponseRecorder<>();
        StreamObserver<DiscoveryRequest> requests =
            AggregatedDiscoveryServiceGrpc.newStub(grpc.channel())
                .withDeadlineAfter(60, TimeUnit.SECONDS)
                .streamAggregatedResources(recorder);
        requests.onNext(eds(null, null));
        DiscoveryResponse first = next(recorder);
        requests.onNext(eds(first, null)); // ACK

        await()
            .atMost(WAIT)
            .untilAsserted(
                () -> {
                  JsonObject client = onlyClient(http);
                  assertThat(client.getString("protocol")).isEqualTo("ads");
                  assertThat(client.getString("node_id")).isEqualTo("sidecar~10.0.0.9~cart");
                  assertThat(client.getInteger("subscribed")).isEqualTo(1);
                  assertThat(eds(client).getString("acked_version"))
                      .isEqualTo(first.getVersionInfo());
                  assertThat(client.getString("behind")).isEqualTo("0s");
                });
        JsonObject client = onlyClient(http);
        assertThat(client.getLong("pid")).isEqualTo(ProcessHandle.current().pid());
        assertThat(client.containsKey("uid")).isTrue();

        // A change with a trigger time; the client gets it and does not acknowledge it.
        cluster.apply(
            slice(
                "shop",
                "cart-a",
                "cart",
                true,
                8080,
                List.of(Pod.ready("p-1", "10.0.0.1"), Pod.ready("p-2", "10.0.0.2"))));
        DiscoveryResponse second = next(recorder);
        await()
            .atMost(WAIT)
            .untilAsserted(
                () -> {
                  JsonObject behind = onlyClient(http);
                  assertThat(eds(behind).getString("sent_version"))
                      .isEqualTo(second.getVersionInfo());
                  assertThat(eds(behind).getString("acked_version"))
                      .isEqualTo(first.getVersionInfo());
                  assertThat(behind.getString("behind")).isNotEqualTo("0s");
                });
        await().atMost(WAIT).until(() -> gauge(agent, "routesync.clients.behind") == 1);
        JsonObject answer = http.get("/v1/clients").json();
        assertThat(answer.getInteger("behind")).isEqualTo(1);
        assertThat(propagations(agent, "ads")).isZero();

        requests.onNext(eds(second, null)); // ACK, late
        await().atMost(WAIT).until(() -> propagations(agent, "ads") == 1);
        await().atMost(WAIT).until(() -> gauge(agent, "routesync.clients.behind") == 0);
        JsonObject latency = http.get("/v1/latency").json();
        assertThat(latency.getString("count")).isEqualTo("1");
        assertThat(latency.getString("p50")).endsWith("s");

        // Another change, rejected: its message shows, bounded and printable; nothing measured.
        cluster.apply(
            slice("shop", "cart-a", "cart", true, 8080, List.of(Pod.ready("p-2", "10.0.0.2"))));
        DiscoveryResponse third = next(recorder);
        requests.onNext(eds(third, "endpoint\u0007 rejected: " + "x".repeat(2_000)));
        await()
            .atMost(WAIT)
            .untilAsserted(
                () -> {
                  JsonObject nacked = onlyClient(http);
                  assertThat(nacked.getString("last_nack_type")).isEqualTo("eds");
                  assertThat(nacked.getString("last_nack"))
                      .startsWith("endpoint? rejected: xxx")
                      .hasSize(256 + 3);
                });
        assertThat(propagations(agent, "ads")).isEqualTo(1);
        requests.onCompleted();
        await().atMost(WAIT).until(() -> http.get("/v1/clients").json().getInteger("total") == 0);
      } finally {
        cluster.close(); // before the agent: see MockCluster#url
        agent.close();
      }
    }
  }

  @Test
  void aWatchShowsByItsClientNameAndAWrittenMessageMeasuresThePropagation() throws Exception {
    try (MockCluster cluster = new MockCluster()) {
      cluster.apply(
          slice("shop", "cart-a", "cart", true, 8080, List.of(Pod.ready("p-1", "10.0.0.1"))));
      AgentHarness agent = AgentHarness.start(cluster.url());
      try (GrpcJavaClient grpc = new GrpcJavaClient(agent.socket());
          UdsHttp http = new UdsHttp(agent.socket())) {
        WatchRecorder watch = new WatchRecorder();
        grpc.watch(
            WatchRequest.newBuilder().setNamespace("shop").setClientName("checkout").build(),
            watch);
        await().atMost(WAIT).until(() -> !watch.events().isEmpty());
        await()
            .atMost(WAIT)
            .untilAsserted(
                () -> {
                  JsonObject client = onlyClient(http);
                  assertThat(client.getString("protocol")).isEqualTo("watch");
                  assertThat(client.getString("client_name")).isEqualTo("checkout");
                  assertThat(client.getInteger("subscribed")).isEqualTo(1);
                  JsonObject services = client.getJsonArray("types").getJsonObject(0);
                  assertThat(services.getString("acked_version"))
                      .isEqualTo(Long.toString(watch.version()));
                });

        cluster.apply(
            slice(
                "shop",
                "cart-a",
                "cart",
                true,
                8080,
                List.of(Pod.ready("p-1", "10.0.0.1"), Pod.ready("p-2", "10.0.0.2"))));
        await().atMost(WAIT).until(() -> watch.events().size() >= 2);
        await().atMost(WAIT).until(() -> propagations(agent, "watch") == 1);
        WatchEvent last = watch.events().get(watch.events().size() - 1);
        assertThat(last.getUpsertedCount()).isEqualTo(1);
      } finally {
        cluster.close();
        agent.close();
      }
    }
  }

  private static DiscoveryRequest eds(DiscoveryResponse answered, String error) {
    DiscoveryRequest.Builder request =
        DiscoveryRequest.newBuilder()
            .setNode(Node.newBuilder().setId("sidecar~10.0.0.9~cart").setUserAgentName("grpc-java"))
            .setTypeUrl(XdsType.ENDPOINT.typeUrl())
            .addResourceNames(CART);
    if (answered != null) {
      request.setResponseNonce(answered.getNonce());
      if (error == null) {
        request.setVersionInfo(answered.getVersionInfo());
      } else {
        request.setErrorDetail(com.google.rpc.Status.newBuilder().setCode(3).setMessage(error));
      }
    }
    return request.build();
  }

  private static DiscoveryResponse next(ResponseRecorder<DiscoveryResponse> recorder)
      throws InterruptedException {
    DiscoveryResponse response = recorder.responses().poll(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(response).as("an EDS response").isNotNull();
    return response;
  }

  private static JsonObject onlyClient(UdsHttp http) throws Exception {
    UdsHttp.Reply reply = http.get("/v1/clients");
    assertThat(reply.status()).isEqualTo(200);
    JsonArray clients = reply.json().getJsonArray("clients");
    assertThat(clients).hasSize(1);
    return clients.getJsonObject(0);
  }

  private static JsonObject eds(JsonObject client) {
    for (Object type : client.getJsonArray("types")) {
      if ("eds".equals(((JsonObject) type).getString("type"))) {
        return (JsonObject) type;
      }
    }
    throw new AssertionError("no eds in " + client);
  }

  private static double gauge(AgentHarness agent, String name) {
    return agent.agent().registry().get(name).gauge().value();
  }

  private static long propagations(AgentHarness agent, String protocol) {
    Timer timer =
        agent
            .agent()
            .registry()
            .find("routesync.propagation.duration")
            .tag("protocol", protocol)
            .timer();
    return timer == null ? 0 : timer.count();
  }
}
