package dev.routesync.xds;

import com.google.protobuf.Descriptors;
import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import dev.routesync.sidecars.Protocol;
import dev.routesync.sidecars.SyncState;
import dev.routesync.streams.StreamHub;
import io.envoyproxy.envoy.service.discovery.v3.AdsProto;
import io.envoyproxy.envoy.service.discovery.v3.DeltaDiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DeltaDiscoveryResponse;
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
import io.vertx.grpc.common.WireFormat;
import io.vertx.grpc.server.GrpcServer;
import io.vertx.grpc.server.GrpcServerRequest;
import io.vertx.grpc.server.Service;
import io.vertx.grpc.server.StatusException;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;

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

  /**
   * Delta (incremental) xDS, what Envoy speaks when its ADS config says {@code DELTA_GRPC}. Its
   * requests are decoded from the raw messages like the state of the world's ({@link AdsRequests}).
   */
  static final ServiceMethod<DeltaDiscoveryRequest, DeltaDiscoveryResponse> DELTA =
      ServiceMethod.server(
          NAME,
          "DeltaAggregatedResources",
          GrpcMessageEncoder.encoder(),
          GrpcMessageDecoder.decoder(DeltaDiscoveryRequest.newBuilder()));

  private final XdsSources sources;
  private final StreamHub<HttpConnection, AdsStream> hub;
  private final XdsObserver observer;
  private final NackLog nacks;
  private final Function<HttpConnection, Object> peerOf;
  private final BiFunction<HttpConnection, Protocol, SyncState> tracker;

  /**
   * @param peerOf who is at the other end of a connection, for the per-peer limits
   */
  AdsService(
      XdsSources sources,
      StreamHub<HttpConnection, AdsStream> hub,
      XdsObserver observer,
      NackLog nacks,
      Function<HttpConnection, Object> peerOf) {
    this(sources, hub, observer, nacks, peerOf, (connection, protocol) -> null);
  }

  /**
   * @param tracker the sync state of a new stream on a connection, or null when none is kept
   */
  AdsService(
      XdsSources sources,
      StreamHub<HttpConnection, AdsStream> hub,
      XdsObserver observer,
      NackLog nacks,
      Function<HttpConnection, Object> peerOf,
      BiFunction<HttpConnection, Protocol, SyncState> tracker) {
    this.tracker = tracker;
    this.sources = sources;
    this.hub = hub;
    this.observer = observer;
    this.nacks = nacks;
    this.peerOf = peerOf;
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
    server.callHandler(DELTA, this::delta);
  }

  private void stateOfTheWorld(GrpcServerRequest<DiscoveryRequest, DiscoveryResponse> call) {
    open(
        call,
        Protocol.ADS,
        DiscoveryRequest.parser(),
        "DiscoveryRequest",
        (context, onClosed) ->
            new SotwStream(
                context,
                call.response(),
                sources,
                observer,
                nacks,
                peerOf.apply(call.connection()),
                call.format() == WireFormat.PROTOBUF,
                onClosed));
  }

  private void delta(GrpcServerRequest<DeltaDiscoveryRequest, DeltaDiscoveryResponse> call) {
    open(
        call,
        Protocol.DELTA_ADS,
        DeltaDiscoveryRequest.parser(),
        "DeltaDiscoveryRequest",
        (context, onClosed) ->
            new DeltaStream(
                context,
                call.response(),
                sources,
                observer,
                nacks,
                peerOf.apply(call.connection()),
                call.format() == WireFormat.PROTOBUF,
                onClosed));
  }

  /** Makes one protocol's stream for a call on {@code context}. */
  @FunctionalInterface
  private interface StreamFactory<Q extends MessageLite> {
    AbstractAdsStream<Q, ?, ?> open(Context context, Consumer<AdsStream> onClosed);
  }

  private <Q extends MessageLite> void open(
      GrpcServerRequest<Q, ?> call,
      Protocol protocol,
      Parser<Q> parser,
      String messageName,
      StreamFactory<Q> factory) {
    HttpConnection connection = call.connection();
    AbstractAdsStream<Q, ?, ?> stream =
        factory.open(Vertx.currentContext(), closed -> hub.remove(connection, closed));
    SyncState state = tracker.apply(connection, protocol);
    if (state != null) {
      stream.track(state);
    }
    hub.add(connection, stream);
    // Raw messages, decoded here: Vert.x's typed handler would cancel the stream on a bad one.
    call.messageHandler(
        message -> {
          Q request;
          try {
            request = AdsRequests.decode(message, parser, messageName);
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
                    : "invalid " + messageName + " message"));
    call.endHandler(ignored -> stream.clientEnded());
    call.errorHandler(error -> stream.closed()); // cancelled or reset by the client
    call.exceptionHandler(error -> stream.closed());
  }
}
