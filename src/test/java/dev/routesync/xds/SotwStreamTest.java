package dev.routesync.xds;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.table.Endpoint;
import dev.routesync.table.Port;
import dev.routesync.table.ServiceState;
import dev.routesync.testing.GrpcJavaClient;
import dev.routesync.testing.ResponseRecorder;
import dev.routesync.testing.ServeHarness;
import io.envoyproxy.envoy.config.core.v3.HealthStatus;
import io.envoyproxy.envoy.config.core.v3.Node;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.config.listener.v3.Listener;
import io.envoyproxy.envoy.service.discovery.v3.AggregatedDiscoveryServiceGrpc;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryResponse;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The state-of-the-world stream against grpc-java's own ADS stub, over the agent's socket. */
class SotwStreamTest {

  private final ServeHarness serve;
  private final GrpcJavaClient client;
  private final ResponseRecorder<DiscoveryResponse> recorder = new ResponseRecorder<>();
  private StreamObserver<DiscoveryRequest> requests;

  SotwStreamTest() throws Exception {
    serve = new ServeHarness();
    client = new GrpcJavaClient(serve.socket());
  }

  @AfterEach
  void close() throws Exception {
    if (requests != null) {
      requests.onCompleted();
    }
    client.close();
    serve.close();
  }

  private void open() {
    requests =
        AggregatedDiscoveryServiceGrpc.newStub(client.channel())
            .withDeadlineAfter(30, TimeUnit.SECONDS)
            .streamAggregatedResources(recorder);
  }

  private DiscoveryResponse next() throws InterruptedException {
    DiscoveryResponse response = recorder.responses().poll(10, TimeUnit.SECONDS);
    assertThat(response).as("a response within 10 s").isNotNull();
    return response;
  }

  private static DiscoveryRequest request(XdsType type, String nonce, String... names) {
    return DiscoveryRequest.newBuilder()
        .setNode(Node.newBuilder().setId("node-a").setUserAgentName("grpc-java"))
        .setTypeUrl(type.typeUrl())
        .setResponseNonce(nonce)
        .addAllResourceNames(List.of(names))
        .build();
  }

  private static Endpoint endpoint(String ip, String zone, boolean ready) {
    return new Endpoint(
        ip, List.of(new Port("grpc", 9090, "TCP")), zone, "node-a", "p-" + ip, ready, true, !ready);
  }

  @Test
  void aDrainingServerEndsTheStreamWithOkWithoutWaitingForItsTimeout() throws Exception {
    serve.put("shop", "cart", 3);
    open();
    requests.onNext(request(XdsType.LISTENER, "", "cart.shop:8080"));
    next();

    // Far longer than the waits below: a stream left open until the timeout fails them.
    var drained = serve.server().shutdown(Duration.ofMinutes(10));

    // GOAWAY first, then a clean end: the client reconnects to the next agent, it sees no reset.
    assertThat(recorder.ended().get(30, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.OK);
    assertThat(drained.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS))
        .isNull();
    requests = null; // ended by the server
  }

  @Test
  void aListenerRoutesToItsClusterAndEdsFollowsTheTable() throws Exception {
    serve.put(
        "shop",
        "cart",
        new ServiceState(
            List.of(endpoint("10.0.0.1", "a", true), endpoint("10.0.0.2", "b", true)),
            List.of(new Port("grpc", 8080, "TCP"))));
    open();
    requests.onNext(request(XdsType.LISTENER, "", "cart.shop:8080"));
    DiscoveryResponse lds = next();
    assertThat(lds.getTypeUrl()).isEqualTo(XdsType.LISTENER.typeUrl());
    Listener listener = lds.getResources(0).unpack(Listener.class);
    assertThat(listener.getName()).isEqualTo("cart.shop:8080");
    requests.onNext(request(XdsType.LISTENER, lds.getNonce(), "cart.shop:8080"));

    String cluster = "cart.shop.svc.cluster.local:8080";
    requests.onNext(request(XdsType.ENDPOINT, "", cluster));
    DiscoveryResponse eds = next();
    ClusterLoadAssignment assignment = eds.getResources(0).unpack(ClusterLoadAssignment.class);
    assertThat(assignment.getClusterName()).isEqualTo(cluster);
    assertThat(assignment.getEndpointsList()).hasSize(2);
    assertThat(assignment.getEndpoints(0).getLbEndpoints(0).getEndpoint().getAddress())
        .satisfies(
            address -> {
              assertThat(address.getSocketAddress().getAddress()).isEqualTo("10.0.0.1");
              assertThat(address.getSocketAddress().getPortValue()).isEqualTo(9090);
            });
    requests.onNext(request(XdsType.ENDPOINT, eds.getNonce(), cluster));

    serve.put(
        "shop",
        "cart",
        new ServiceState(
            List.of(endpoint("10.0.0.2", "b", true), endpoint("10.0.0.3", "b", false)),
            List.of(new Port("grpc", 8080, "TCP"))));
    DiscoveryResponse pushed = next();
    assertThat(pushed.getTypeUrl()).isEqualTo(XdsType.ENDPOINT.typeUrl());
    assertThat(Long.parseLong(pushed.getVersionInfo())).isEqualTo(serve.table().version());
    ClusterLoadAssignment after = pushed.getResources(0).unpack(ClusterLoadAssignment.class);
    assertThat(after.getEndpointsList()).hasSize(1);
    assertThat(after.getEndpoints(0).getLoadBalancingWeight().getValue()).isEqualTo(2);
    assertThat(after.getEndpoints(0).getLbEndpoints(1).getHealthStatus())
        .isEqualTo(HealthStatus.DRAINING);
  }

  @Test
  void nothingIsSentBeforeTheFirstSyncThenTheSyncedTableIs() throws Exception {
    ServeHarness unsynced = ServeHarness.unsynced();
    try (GrpcJavaClient early = new GrpcJavaClient(unsynced.socket())) {
      BlockingQueue<DiscoveryResponse> got = new LinkedBlockingQueue<>();
      StreamObserver<DiscoveryRequest> stream =
          AggregatedDiscoveryServiceGrpc.newStub(early.channel())
              .withDeadlineAfter(30, TimeUnit.SECONDS)
              .streamAggregatedResources(
                  new StreamObserver<>() {
                    @Override
                    public void onNext(DiscoveryResponse value) {
                      got.add(value);
                    }

                    @Override
                    public void onError(Throwable t) {}

                    @Override
                    public void onCompleted() {}
                  });
      stream.onNext(request(XdsType.ENDPOINT, "", "cart.shop.svc.cluster.local:8080"));
      // The empty placeholder table must not reach the client as "no endpoints".
      assertThat(got.poll(1, TimeUnit.SECONDS)).isNull();
      unsynced.put(
          "shop",
          "cart",
          new ServiceState(
              List.of(endpoint("10.0.0.9", "a", true)), List.of(new Port("grpc", 8080, "TCP"))));
      unsynced.markSynced();
      DiscoveryResponse first = got.poll(10, TimeUnit.SECONDS);
      assertThat(first).isNotNull();
      assertThat(
              first
                  .getResources(0)
                  .unpack(ClusterLoadAssignment.class)
                  .getEndpoints(0)
                  .getLbEndpointsCount())
          .isEqualTo(1);
      stream.onCompleted();
    } finally {
      unsynced.close();
    }
  }

  @Test
  void aDrainEndsAdsStreamsWithOkAtOnceNotAtTheTimeout() throws Exception {
    open();
    requests.onNext(request(XdsType.LISTENER, "", "cart.shop:8080"));
    next();
    // The drain's timeout is far past the bounds below: a stream that ended only at the timeout
    // fails them, and no wall-clock figure is asserted.
    serve.server().shutdown(java.time.Duration.ofMinutes(5)).await(30, TimeUnit.SECONDS);
    assertThat(recorder.ended().get(30, TimeUnit.SECONDS).getCode())
        .isEqualTo(io.grpc.Status.Code.OK);
    requests = null;
  }

  @Test
  void aServiceNotThereYetOrDeletedGetsAClusterWhoseAssignmentDropsEveryCall() throws Exception {
    String cluster = "cart.shop.svc.cluster.local:8080";
    open();
    requests.onNext(request(XdsType.CLUSTER, "", cluster));
    DiscoveryResponse cds = next();
    assertThat(cds.getResourcesCount()).as("every valid name has its cluster").isEqualTo(1);
    requests.onNext(request(XdsType.CLUSTER, cds.getNonce(), cluster));
    requests.onNext(request(XdsType.ENDPOINT, "", cluster));
    DiscoveryResponse none = next();
    assertThat(none.getTypeUrl()).isEqualTo(XdsType.ENDPOINT.typeUrl());
    ClusterLoadAssignment nothing = none.getResources(0).unpack(ClusterLoadAssignment.class);
    assertThat(XdsResources.dropsEverything(nothing)).isTrue();
    assertThat(nothing.getPolicy().getDropOverloads(0).getCategory())
        .isEqualTo(XdsResources.NO_SUCH_SERVICE);
    requests.onNext(request(XdsType.ENDPOINT, none.getNonce(), cluster));

    serve.put(
        "shop",
        "cart",
        new ServiceState(
            List.of(endpoint("10.0.0.1", "a", true)), List.of(new Port("grpc", 8080, "TCP"))));
    DiscoveryResponse created = next();
    assertThat(created.getTypeUrl())
        .as("EDS only: CDS is the name's")
        .isEqualTo(XdsType.ENDPOINT.typeUrl());
    ClusterLoadAssignment routes = created.getResources(0).unpack(ClusterLoadAssignment.class);
    assertThat(XdsResources.dropsEverything(routes)).isFalse();
    assertThat(
            routes
                .getEndpoints(0)
                .getLbEndpoints(0)
                .getEndpoint()
                .getAddress()
                .getSocketAddress()
                .getAddress())
        .isEqualTo("10.0.0.1");
    requests.onNext(request(XdsType.ENDPOINT, created.getNonce(), cluster));

    serve.remove("shop", "cart");
    DiscoveryResponse deleted = next();
    assertThat(deleted.getTypeUrl()).isEqualTo(XdsType.ENDPOINT.typeUrl());
    assertThat(
            XdsResources.dropsEverything(
                deleted.getResources(0).unpack(ClusterLoadAssignment.class)))
        .isTrue();
    assertThat(Long.parseLong(deleted.getVersionInfo())).isEqualTo(serve.table().version());
  }
}
