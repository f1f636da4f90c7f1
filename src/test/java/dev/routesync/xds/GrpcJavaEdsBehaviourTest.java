package dev.routesync.xds;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Any;
import com.google.protobuf.UInt32Value;
import dev.routesync.testing.AdsClient;
import dev.routesync.testing.XdsBackends;
import dev.routesync.testing.XdsBootstrap;
import io.envoyproxy.envoy.config.core.v3.Address;
import io.envoyproxy.envoy.config.core.v3.HealthStatus;
import io.envoyproxy.envoy.config.core.v3.Locality;
import io.envoyproxy.envoy.config.core.v3.SocketAddress;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.config.endpoint.v3.Endpoint;
import io.envoyproxy.envoy.config.endpoint.v3.LbEndpoint;
import io.envoyproxy.envoy.config.endpoint.v3.LocalityLbEndpoints;
import io.envoyproxy.envoy.service.discovery.v3.AggregatedDiscoveryServiceGrpc;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryResponse;
import io.envoyproxy.envoy.type.v3.FractionalPercent;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What grpc-java 1.85.1's xDS client does with an assignment that leaves it no endpoint, found
 * against the agent (XdsInteropTest) and pinned here against a fake ADS server, so that the agent's
 * answer can be chosen for it and a grpc-java upgrade that changes it is noticed.
 *
 * <p>An update with no usable endpoint (none at all, none healthy, an empty locality, or none with
 * a drop policy) is taken as a resolution error: a channel that already routes keeps its picker and
 * goes on calling the old endpoints. Only an assignment that keeps a healthy endpoint and drops
 * every call ({@code policy.drop_overloads} at 100%) fails calls at once, with UNAVAILABLE.
 */
@Timeout(60)
class GrpcJavaEdsBehaviourTest {

  private static final String CLUSTER = "cart.shop.svc.cluster.local:8080";
  private static final Duration CALL = Duration.ofSeconds(2);

  @TempDir Path dir;

  private XdsBackends backends;
  private Server ads;
  private ManagedChannel channel;
  private final AtomicReference<StreamObserver<DiscoveryResponse>> stream = new AtomicReference<>();

  @BeforeEach
  void start() throws Exception {
    backends = XdsBackends.start("a");
    XdsBackends.Backend a = backends.get("a");
    ads =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(new FakeAds(a))
            .build()
            .start();
    channel =
        XdsBootstrap.write(dir, "localhost:" + ads.getPort(), "node-a", "zone-a")
            .channel("xds:///cart.shop:8080");
    // The first xDS channel in a JVM takes seconds (XdsInteropTest.FIRST_ROUTE).
    Awaitility.await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(() -> XdsBackends.who(channel, CALL).equals("a"));
  }

  @AfterEach
  void stop() throws Exception {
    if (channel != null) {
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
    if (ads != null) {
      ads.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
    if (backends != null) {
      backends.close();
    }
  }

  @Test
  void anAssignmentWithNoEndpointLeavesTheOldEndpointsInUse() {
    push(ClusterLoadAssignment.newBuilder().setClusterName(CLUSTER).build());
    Awaitility.await("calls still reach the old endpoint")
        .during(Duration.ofSeconds(1))
        .atMost(Duration.ofSeconds(30))
        .until(() -> XdsBackends.who(channel, CALL).equals("a"));
  }

  @Test
  void aHealthyPlaceholderWithEveryCallDroppedFailsCallsAtOnce() {
    push(
        ClusterLoadAssignment.newBuilder()
            .setClusterName(CLUSTER)
            .addEndpoints(locality(endpoint("127.0.0.1", 9, HealthStatus.HEALTHY)))
            .setPolicy(
                ClusterLoadAssignment.Policy.newBuilder()
                    .addDropOverloads(
                        ClusterLoadAssignment.Policy.DropOverload.newBuilder()
                            .setCategory("no_endpoints")
                            .setDropPercentage(
                                FractionalPercent.newBuilder()
                                    .setNumerator(100)
                                    .setDenominator(FractionalPercent.DenominatorType.HUNDRED))))
            .build());
    StatusRuntimeException failed =
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(this::failure, f -> f != null);
    assertThat(failed.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(failed.getStatus().getDescription()).contains("Dropped: no_endpoints");
  }

  private StatusRuntimeException failure() {
    try {
      XdsBackends.who(channel, CALL);
      return null;
    } catch (StatusRuntimeException e) {
      return e;
    }
  }

  private void push(ClusterLoadAssignment assignment) {
    StreamObserver<DiscoveryResponse> out = stream.get();
    synchronized (out) { // grpc-java's observers are not thread-safe: the fake's thread writes too
      out.onNext(
          DiscoveryResponse.newBuilder()
              .setTypeUrl(AdsClient.EDS)
              .setVersionInfo("2")
              .setNonce("pushed")
              .addResources(Any.pack(assignment))
              .build());
    }
  }

  private static LocalityLbEndpoints locality(LbEndpoint endpoint) {
    return LocalityLbEndpoints.newBuilder()
        .setLocality(Locality.newBuilder().setZone("zone-a"))
        .setLoadBalancingWeight(UInt32Value.of(1))
        .addLbEndpoints(endpoint)
        .build();
  }

  private static LbEndpoint endpoint(String ip, int port, HealthStatus health) {
    return LbEndpoint.newBuilder()
        .setHealthStatus(health)
        .setEndpoint(
            Endpoint.newBuilder()
                .setAddress(
                    Address.newBuilder()
                        .setSocketAddress(
                            SocketAddress.newBuilder().setAddress(ip).setPortValue(port))))
        .build();
  }

  /**
   * Answers each first request of a type with the agent's own resources for the names asked
   * (XdsResources), the assignment holding backend {@code a}; ignores ACKs; keeps the stream for
   * {@link #push}.
   */
  private final class FakeAds
      extends AggregatedDiscoveryServiceGrpc.AggregatedDiscoveryServiceImplBase {
    private final XdsBackends.Backend a;

    FakeAds(XdsBackends.Backend a) {
      this.a = a;
    }

    @Override
    public StreamObserver<DiscoveryRequest> streamAggregatedResources(
        StreamObserver<DiscoveryResponse> out) {
      stream.set(out);
      return new StreamObserver<>() {
        private int nonce;

        @Override
        public void onNext(DiscoveryRequest request) {
          if (!request.getResponseNonce().isEmpty()) {
            return;
          }
          DiscoveryResponse.Builder response =
              DiscoveryResponse.newBuilder()
                  .setTypeUrl(request.getTypeUrl())
                  .setVersionInfo("1")
                  .setNonce(Integer.toString(++nonce));
          for (String name : request.getResourceNamesList()) {
            switch (request.getTypeUrl()) {
              case AdsClient.LDS -> response.addResources(Any.pack(XdsResources.listener(name)));
              case AdsClient.CDS -> response.addResources(Any.pack(XdsResources.cluster(name)));
              case AdsClient.EDS ->
                  response.addResources(
                      Any.pack(
                          ClusterLoadAssignment.newBuilder()
                              .setClusterName(name)
                              .addEndpoints(
                                  locality(endpoint(a.ip(), a.port(), HealthStatus.HEALTHY)))
                              .build()));
              default -> {}
            }
          }
          synchronized (out) {
            out.onNext(response.build());
          }
        }

        @Override
        public void onError(Throwable t) {}

        @Override
        public void onCompleted() {
          out.onCompleted();
        }
      };
    }
  }
}
