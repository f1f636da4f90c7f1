package dev.routesync.xds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.routesync.table.RoutingTable;
import dev.routesync.table.ServiceKey;
import dev.routesync.testing.GrpcJavaClient;
import dev.routesync.testing.ResponseRecorder;
import dev.routesync.testing.ServeHarness;
import dev.routesync.testing.UdsHttp;
import io.envoyproxy.envoy.config.core.v3.Node;
import io.envoyproxy.envoy.service.discovery.v3.AggregatedDiscoveryServiceGrpc;
import io.envoyproxy.envoy.service.discovery.v3.DeltaDiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DeltaDiscoveryResponse;
import io.grpc.stub.StreamObserver;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A delta ADS stream's sync state in {@code GET /v1/clients}: its versions, its ACK of an update
 * carrying a triggered change (the propagation histogram), a NACK's message.
 */
@Timeout(60)
class AdsSyncStateTest {

  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final String CART = "cart.shop.svc.cluster.local:8080";
  private static final ServiceKey CART_KEY = ServiceKey.of("shop", "cart");

  private ServeHarness serve;
  private GrpcJavaClient grpc;
  private UdsHttp http;

  @BeforeEach
  void start() throws Exception {
    serve = new ServeHarness();
    serve.put("shop", "cart", 1);
    grpc = new GrpcJavaClient(serve.socket());
    http = new UdsHttp(serve.socket());
  }

  @AfterEach
  void stop() throws Exception {
    grpc.close();
    serve.close();
  }

  @Test
  void aDeltaClientsAckOfATriggeredUpdateIsMeasuredAndItsNackShows() throws Exception {
    ResponseRecorder<DeltaDiscoveryResponse> recorder = new ResponseRecorder<>();
    StreamObserver<DeltaDiscoveryRequest> requests =
        AggregatedDiscoveryServiceGrpc.newStub(grpc.channel())
            .withDeadlineAfter(30, TimeUnit.SECONDS)
            .deltaAggregatedResources(recorder);
    requests.onNext(request().addResourceNamesSubscribe(CART).build());
    DeltaDiscoveryResponse first = next(recorder);
    requests.onNext(request().setResponseNonce(first.getNonce()).build());
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              JsonObject client = onlyClient();
              assertThat(client.getString("protocol")).isEqualTo("delta-ads");
              assertThat(client.getString("node_id")).isEqualTo("envoy-1");
              assertThat(eds(client).getString("acked_version"))
                  .isEqualTo(first.getSystemVersionInfo());
            });

    RoutingTable changed = serve.put("shop", "cart", 2);
    long version = changed.get(CART_KEY).orElseThrow().version();
    serve
        .server()
        .sidecars()
        .ledger()
        .programmed(CART_KEY, version, Instant.now().minusMillis(700));
    DeltaDiscoveryResponse second = next(recorder);
    assertThat(serve.server().sidecars().latency().count()).isZero();
    requests.onNext(request().setResponseNonce(second.getNonce()).build());
    await().atMost(WAIT).until(() -> serve.server().sidecars().latency().count() == 1);
    assertThat(serve.server().sidecars().latency().quantileMillis(0.5)).isGreaterThan(500);

    serve.put("shop", "cart", 3);
    DeltaDiscoveryResponse third = next(recorder);
    requests.onNext(
        request()
            .setResponseNonce(third.getNonce())
            .setErrorDetail(com.google.rpc.Status.newBuilder().setCode(3).setMessage("no thanks"))
            .build());
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              JsonObject client = onlyClient();
              assertThat(client.getString("last_nack")).isEqualTo("no thanks");
              assertThat(client.getString("last_nack_type")).isEqualTo("eds");
              assertThat(eds(client).getString("sent_version"))
                  .isEqualTo(third.getSystemVersionInfo());
              assertThat(eds(client).getString("acked_version"))
                  .isEqualTo(second.getSystemVersionInfo());
            });
    requests.onCompleted();
    await().atMost(WAIT).until(() -> serve.server().sidecars().size() == 0);
  }

  private static DeltaDiscoveryRequest.Builder request() {
    return DeltaDiscoveryRequest.newBuilder()
        .setNode(Node.newBuilder().setId("envoy-1").setUserAgentName("envoy"))
        .setTypeUrl(XdsType.ENDPOINT.typeUrl());
  }

  private static DeltaDiscoveryResponse next(ResponseRecorder<DeltaDiscoveryResponse> recorder)
      throws InterruptedException {
    DeltaDiscoveryResponse response = recorder.responses().poll(10, TimeUnit.SECONDS);
    assertThat(response).as("a response within 10 s").isNotNull();
    return response;
  }

  private JsonObject onlyClient() throws Exception {
    var clients = http.get("/v1/clients").json().getJsonArray("clients");
    assertThat(clients).hasSize(1);
    return clients.getJsonObject(0);
  }

  private static JsonObject eds(JsonObject client) {
    return client.getJsonArray("types").stream()
        .map(JsonObject.class::cast)
        .filter(type -> "eds".equals(type.getString("type")))
        .findFirst()
        .orElseThrow();
  }
}
