package dev.routesync.xds;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.table.Endpoint;
import dev.routesync.table.Port;
import dev.routesync.table.ServiceState;
import dev.routesync.table.ServiceTraffic;
import dev.routesync.table.TopologyDecision;
import dev.routesync.testing.GrpcJavaClient;
import dev.routesync.testing.ResponseRecorder;
import dev.routesync.testing.ServeHarness;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.config.core.v3.Node;
import io.envoyproxy.envoy.config.listener.v3.Listener;
import io.envoyproxy.envoy.service.discovery.v3.AggregatedDiscoveryServiceGrpc;
import io.envoyproxy.envoy.service.discovery.v3.DeltaDiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DeltaDiscoveryResponse;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryResponse;
import io.grpc.stub.StreamObserver;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The ADS streams (state of the world and delta, through grpc-java's own ADS stub) for the Service
 * kinds: a cluster follows its Service becoming ExternalName (a LOGICAL_DNS cluster) and back, and
 * a {@code clusterset.local} name is left out of every response, counted once.
 */
class ServiceKindsAdsTest {

  private static final String CLUSTER = "cart.shop.svc.cluster.local:8080";
  private static final String CLUSTERSET = "cart.shop.svc.clusterset.local:8080";

  private final ServeHarness serve;
  private final GrpcJavaClient client;

  ServiceKindsAdsTest() throws Exception {
    serve = new ServeHarness();
    client = new GrpcJavaClient(serve.socket());
  }

  @AfterEach
  void close() throws Exception {
    client.close();
    serve.close();
  }

  private static final Node NODE =
      Node.newBuilder().setId("node-a").setCluster("web").setUserAgentName("envoy").build();

  private static ServiceState plain() {
    return new ServiceState(
        List.of(
            new Endpoint(
                "10.0.0.1",
                List.of(new Port("http", 9090, "TCP")),
                "a",
                "node-a",
                "p-1",
                true,
                true,
                false)),
        List.of(new Port("http", 8080, "TCP")));
  }

  private static ServiceState external(String host) {
    return new ServiceState(
        List.of(),
        List.of(new Port("http", 8080, "TCP")),
        ServiceTraffic.of(null, false, false, host),
        TopologyDecision.NONE);
  }

  private static DiscoveryRequest sotw(XdsType type, String nonce, String... names) {
    return DiscoveryRequest.newBuilder()
        .setNode(NODE)
        .setTypeUrl(type.typeUrl())
        .setResponseNonce(nonce)
        .addAllResourceNames(List.of(names))
        .build();
  }

  private static <T> T next(ResponseRecorder<T> recorder) throws InterruptedException {
    T response = recorder.responses().poll(10, TimeUnit.SECONDS);
    assertThat(response).as("a response within 10 s").isNotNull();
    return response;
  }

  @Test
  void aStateOfTheWorldClusterFollowsItsServiceBecomingExternalNameAndBack() throws Exception {
    serve.put("shop", "cart", plain());
    ResponseRecorder<DiscoveryResponse> recorder = new ResponseRecorder<>();
    StreamObserver<DiscoveryRequest> requests =
        AggregatedDiscoveryServiceGrpc.newStub(client.channel())
            .withDeadlineAfter(30, TimeUnit.SECONDS)
            .streamAggregatedResources(recorder);
    try {
      requests.onNext(sotw(XdsType.CLUSTER, "", CLUSTER));
      DiscoveryResponse first = next(recorder);
      assertThat(first.getResources(0).unpack(Cluster.class).getType())
          .isEqualTo(Cluster.DiscoveryType.EDS);
      requests.onNext(sotw(XdsType.CLUSTER, first.getNonce(), CLUSTER));

      serve.put("shop", "cart", external("db.example.com"));
      DiscoveryResponse dns = next(recorder);
      Cluster logical = dns.getResources(0).unpack(Cluster.class);
      assertThat(logical.getType()).isEqualTo(Cluster.DiscoveryType.LOGICAL_DNS);
      assertThat(
              logical
                  .getLoadAssignment()
                  .getEndpoints(0)
                  .getLbEndpoints(0)
                  .getEndpoint()
                  .getAddress()
                  .getSocketAddress()
                  .getAddress())
          .isEqualTo("db.example.com");
      requests.onNext(sotw(XdsType.CLUSTER, dns.getNonce(), CLUSTER));

      serve.put("shop", "cart", plain());
      DiscoveryResponse back = next(recorder);
      assertThat(back.getResources(0).unpack(Cluster.class).getType())
          .isEqualTo(Cluster.DiscoveryType.EDS);
    } finally {
      requests.onCompleted();
    }
  }

  @Test
  void aStateOfTheWorldListenerResponseLeavesClustersetNamesOutAndCountsThemOnce()
      throws Exception {
    serve.put("shop", "cart", plain());
    ResponseRecorder<DiscoveryResponse> recorder = new ResponseRecorder<>();
    StreamObserver<DiscoveryRequest> requests =
        AggregatedDiscoveryServiceGrpc.newStub(client.channel())
            .withDeadlineAfter(30, TimeUnit.SECONDS)
            .streamAggregatedResources(recorder);
    try {
      requests.onNext(sotw(XdsType.LISTENER, "", CLUSTERSET, "cart.shop:8080"));
      DiscoveryResponse lds = next(recorder);
      assertThat(lds.getResourcesList())
          .extracting(any -> any.unpack(Listener.class).getName())
          .containsExactly("cart.shop:8080");
      requests.onNext(sotw(XdsType.LISTENER, lds.getNonce(), CLUSTERSET, "cart.shop:8080"));

      requests.onNext(sotw(XdsType.CLUSTER, "", CLUSTERSET));
      DiscoveryResponse cds = next(recorder);
      assertThat(cds.getResourcesCount()).isZero();
      requests.onNext(sotw(XdsType.CLUSTER, cds.getNonce(), CLUSTERSET));

      requests.onNext(sotw(XdsType.ENDPOINT, "", CLUSTERSET, CLUSTER));
      DiscoveryResponse eds = next(recorder);
      assertThat(eds.getResourcesList())
          .extracting(
              any ->
                  any.unpack(io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment.class)
                      .getClusterName())
          .containsExactly(CLUSTER);
    } finally {
      requests.onCompleted();
    }
    assertThat(serve.counter("routesync.xds.refused.names", "type", "lds")).isEqualTo(1);
    assertThat(serve.counter("routesync.xds.refused.names", "type", "cds")).isEqualTo(1);
    assertThat(serve.counter("routesync.xds.refused.names", "type", "eds")).isEqualTo(1);
  }

  @Test
  void aDeltaClusterFollowsItsServiceBecomingExternalNameAndClustersetNamesAreNeverSent()
      throws Exception {
    serve.put("shop", "cart", plain());
    ResponseRecorder<DeltaDiscoveryResponse> recorder = new ResponseRecorder<>();
    StreamObserver<DeltaDiscoveryRequest> requests =
        AggregatedDiscoveryServiceGrpc.newStub(client.channel())
            .withDeadlineAfter(30, TimeUnit.SECONDS)
            .deltaAggregatedResources(recorder);
    try {
      requests.onNext(
          DeltaDiscoveryRequest.newBuilder()
              .setNode(NODE)
              .setTypeUrl(XdsType.CLUSTER.typeUrl())
              .addResourceNamesSubscribe(CLUSTER)
              .addResourceNamesSubscribe(CLUSTERSET)
              .build());
      DeltaDiscoveryResponse first = next(recorder);
      assertThat(first.getResourcesList()).extracting(r -> r.getName()).containsExactly(CLUSTER);
      assertThat(first.getResources(0).getResource().unpack(Cluster.class).getType())
          .isEqualTo(Cluster.DiscoveryType.EDS);
      requests.onNext(ack(first));

      serve.put("shop", "cart", external("db.example.com"));
      DeltaDiscoveryResponse dns = next(recorder);
      assertThat(dns.getResourcesList()).extracting(r -> r.getName()).containsExactly(CLUSTER);
      assertThat(dns.getResources(0).getResource().unpack(Cluster.class).getType())
          .isEqualTo(Cluster.DiscoveryType.LOGICAL_DNS);
      requests.onNext(ack(dns));
    } finally {
      requests.onCompleted();
    }
    assertThat(serve.counter("routesync.xds.refused.names", "type", "cds")).isEqualTo(1);
  }

  private static DeltaDiscoveryRequest ack(DeltaDiscoveryResponse response) {
    return DeltaDiscoveryRequest.newBuilder()
        .setNode(NODE)
        .setTypeUrl(response.getTypeUrl())
        .setResponseNonce(response.getNonce())
        .build();
  }
}
