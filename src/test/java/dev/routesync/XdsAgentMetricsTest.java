package dev.routesync;

import static dev.routesync.testing.Slices.slice;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.routesync.testing.AgentHarness;
import dev.routesync.testing.GrpcJavaClient;
import dev.routesync.testing.MockCluster;
import dev.routesync.testing.ResponseRecorder;
import dev.routesync.testing.Slices.Pod;
import dev.routesync.xds.XdsType;
import io.envoyproxy.envoy.config.core.v3.Node;
import io.envoyproxy.envoy.service.discovery.v3.AggregatedDiscoveryServiceGrpc;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryResponse;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The agent wires its xDS server to its metrics: an ADS stream shows on its registry. */
class XdsAgentMetricsTest {

  private static final Duration WAIT = Duration.ofSeconds(10);

  @Test
  void anAdsStreamOnTheAgentsSocketIsCounted() throws Exception {
    try (MockCluster cluster = new MockCluster()) {
      cluster.apply(
          slice("shop", "cart-a", "cart", true, 8080, List.of(Pod.ready("p-1", "10.0.0.1"))));
      AgentHarness agent = AgentHarness.start(cluster.url());
      try (GrpcJavaClient grpc = new GrpcJavaClient(agent.socket())) {
        ResponseRecorder<DiscoveryResponse> recorder = new ResponseRecorder<>();
        StreamObserver<DiscoveryRequest> requests =
            AggregatedDiscoveryServiceGrpc.newStub(grpc.channel())
                .withDeadlineAfter(30, TimeUnit.SECONDS)
                .streamAggregatedResources(recorder);
        requests.onNext(
            DiscoveryRequest.newBuilder()
                .setNode(Node.newBuilder().setId("node-a").setUserAgentName("grpc-java"))
                .setTypeUrl(XdsType.ENDPOINT.typeUrl())
                .addResourceNames("cart.shop.svc.cluster.local:8080")
                .build());
        assertThat(recorder.responses().poll(10, TimeUnit.SECONDS))
            .as("an EDS response")
            .isNotNull();

        assertThat(streams(agent)).isEqualTo(1);
        await()
            .atMost(WAIT)
            .until(() -> agent.counter("routesync.xds.responses", "type", "eds") == 1);
        requests.onCompleted();
        await().atMost(WAIT).until(() -> streams(agent) == 0);
      } finally {
        cluster.close(); // before the agent: see MockCluster#url
        agent.close();
      }
    }
  }

  private static double streams(AgentHarness agent) {
    return agent
        .agent()
        .registry()
        .get("routesync.xds.streams")
        .tags("client", "grpc-java", "api", "sotw")
        .gauge()
        .value();
  }
}
