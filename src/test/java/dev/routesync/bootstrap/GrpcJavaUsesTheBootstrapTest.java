package dev.routesync.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import io.envoyproxy.envoy.service.discovery.v3.DiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryResponse;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.NameResolverRegistry;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.internal.JsonParser;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import io.grpc.xds.XdsNameResolverProvider;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * grpc-java's unmodified {@code xds:///} resolver, given only the bootstrap this command prints,
 * reaches an ADS server on that Unix socket and introduces itself with the node it names. The ADS
 * server here is a stub that records the first request: what the agent's server then answers is
 * tested with the agent (xds/).
 */
class GrpcJavaUsesTheBootstrapTest {

  // A scheme of this test's own, so that its resolver and its xDS client are nobody else's.
  private static final String SCHEME = "routesync-bootstrap-test";

  private static final MethodDescriptor<DiscoveryRequest, DiscoveryResponse> ADS =
      MethodDescriptor.<DiscoveryRequest, DiscoveryResponse>newBuilder()
          .setType(MethodDescriptor.MethodType.BIDI_STREAMING)
          .setFullMethodName(
              "envoy.service.discovery.v3.AggregatedDiscoveryService/StreamAggregatedResources")
          .setRequestMarshaller(ProtoUtils.marshaller(DiscoveryRequest.getDefaultInstance()))
          .setResponseMarshaller(ProtoUtils.marshaller(DiscoveryResponse.getDefaultInstance()))
          .build();

  @TempDir Path dir;

  @Test
  void theClientDialsTheSocketAndSendsTheNodeIdAndZone() throws Exception {
    Path socket = dir.resolve("ads.sock");
    CompletableFuture<DiscoveryRequest> first = new CompletableFuture<>();
    ServerServiceDefinition ads =
        ServerServiceDefinition.builder("envoy.service.discovery.v3.AggregatedDiscoveryService")
            .addMethod(
                ADS,
                ServerCalls.asyncBidiStreamingCall(
                    (StreamObserver<DiscoveryResponse> responses) ->
                        new StreamObserver<DiscoveryRequest>() {
                          @Override
                          public void onNext(DiscoveryRequest request) {
                            first.complete(request);
                          }

                          @Override
                          public void onError(Throwable t) {}

                          @Override
                          public void onCompleted() {
                            responses.onCompleted();
                          }
                        }))
            .build();
    EpollEventLoopGroup group = new EpollEventLoopGroup(1);
    Server server =
        NettyServerBuilder.forAddress(new DomainSocketAddress(socket.toString()))
            .channelType(EpollServerDomainSocketChannel.class)
            .bossEventLoopGroup(group)
            .workerEventLoopGroup(group)
            .addService(ads)
            .build()
            .start();
    String json = new GrpcBootstrap(socket, "node-a", Locality.zone("zone-1")).json();
    @SuppressWarnings("unchecked")
    Map<String, ?> bootstrap = (Map<String, ?>) JsonParser.parse(json);
    XdsNameResolverProvider resolver = XdsNameResolverProvider.createForTest(SCHEME, bootstrap);
    NameResolverRegistry.getDefaultRegistry().register(resolver);
    ManagedChannel channel =
        Grpc.newChannelBuilder(SCHEME + ":///hello.shop:5000", InsecureChannelCredentials.create())
            .build();
    try {
      channel.getState(/* requestConnection= */ true); // starts the resolver, hence the xDS client

      DiscoveryRequest request = first.get(30, TimeUnit.SECONDS);

      assertThat(request.getNode().getId()).isEqualTo("node-a");
      assertThat(request.getNode().getLocality().getZone()).isEqualTo("zone-1");
      assertThat(request.getNode().getUserAgentName()).isEqualTo("gRPC Java");
      assertThat(request.getTypeUrl())
          .isEqualTo("type.googleapis.com/envoy.config.listener.v3.Listener");
      assertThat(request.getResourceNamesList()).containsExactly("hello.shop:5000");
    } finally {
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      NameResolverRegistry.getDefaultRegistry().deregister(resolver);
      server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
    }
  }
}
