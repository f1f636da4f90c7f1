package dev.routesync.xds;

import com.google.protobuf.Descriptors;
import io.envoyproxy.envoy.service.discovery.v3.AdsProto;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryResponse;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.grpc.common.GrpcMessageDecoder;
import io.vertx.grpc.common.GrpcMessageEncoder;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.common.MessageSizeOverflowException;
import io.vertx.grpc.common.ServiceMethod;
import io.vertx.grpc.common.ServiceName;
import io.vertx.grpc.server.GrpcServer;
import io.vertx.grpc.server.GrpcServerRequest;
import io.vertx.grpc.server.Service;
import io.vertx.grpc.server.StatusException;

/**
 * {@code envoy.service.discovery.v3.AggregatedDiscoveryService}, declared by hand: the Envoy API
 * jar's generated stub is grpc-java's, and vertx-grpc needs only the method's name and codecs.
 */
final class AdsService implements Service {

  static final ServiceName NAME =
      ServiceName.create("envoy.service.discovery.v3.AggregatedDiscoveryService");

  static final ServiceMethod<DiscoveryRequest, DiscoveryResponse> STATE_OF_THE_WORLD =
      ServiceMethod.server(
          NAME,
          "StreamAggregatedResources",
          GrpcMessageEncoder.encoder(),
          GrpcMessageDecoder.decoder(DiscoveryRequest.newBuilder()));

  private final XdsSources sources;
  private final XdsHub hub;
  private final XdsObserver observer;
  private final NackLog nacks;

  AdsService(XdsSources sources, XdsHub hub, XdsObserver observer, NackLog nacks) {
    this.sources = sources;
    this.hub = hub;
    this.observer = observer;
    this.nacks = nacks;
  }

  @Override
  public ServiceName name() {
    return NAME;
  }

  @Override
  public Descriptors.ServiceDescriptor descriptor() {
    return AdsProto.getDescriptor().findServiceByName("AggregatedDiscoveryService");
  }

  @Override
  public void bind(GrpcServer server) {
    server.callHandler(STATE_OF_THE_WORLD, this::stateOfTheWorld);
  }

  private void stateOfTheWorld(GrpcServerRequest<DiscoveryRequest, DiscoveryResponse> call) {
    Context context = Vertx.currentContext();
    HttpConnection connection = call.connection();
    SotwStream[] self = new SotwStream[1];
    SotwStream stream =
        new SotwStream(
            context,
            call.response(),
            sources,
            observer,
            nacks,
            () -> hub.remove(connection, self[0]));
    self[0] = stream;
    hub.add(connection, stream);
    // Raw messages, decoded here: Vert.x's typed handler would cancel the stream on a bad one.
    call.messageHandler(
        message -> {
          DiscoveryRequest request;
          try {
            request = AdsRequests.decode(message, DiscoveryRequest.parser());
          } catch (StatusException e) {
            stream.fail(e.status(), e.message());
            return;
          }
          stream.onRequest(request);
        });
    call.invalidMessageHandler(
        invalid ->
            stream.fail(
                invalid instanceof MessageSizeOverflowException
                    ? GrpcStatus.RESOURCE_EXHAUSTED
                    : GrpcStatus.INVALID_ARGUMENT,
                invalid instanceof MessageSizeOverflowException
                    ? "request message over the limit of " + XdsServer.MAX_REQUEST_BYTES + " bytes"
                    : "invalid DiscoveryRequest message"));
    call.endHandler(ignored -> stream.clientEnded());
    call.errorHandler(error -> stream.closed()); // cancelled or reset by the client
    call.exceptionHandler(error -> stream.closed());
  }
}
