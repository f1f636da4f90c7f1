package dev.routesync.xds;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.testing.GrpcJavaClient;
import dev.routesync.testing.RawBytes;
import dev.routesync.testing.ServeHarness;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryResponse;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A hostile ADS client gets a status, never a hang, a crash or unbounded memory. */
class AdsLimitsTest {

  private static final MethodDescriptor<byte[], byte[]> RAW =
      MethodDescriptor.<byte[], byte[]>newBuilder()
          .setType(MethodDescriptor.MethodType.BIDI_STREAMING)
          .setFullMethodName(
              "envoy.service.discovery.v3.AggregatedDiscoveryService/StreamAggregatedResources")
          .setRequestMarshaller(RawBytes.MARSHALLER)
          .setResponseMarshaller(RawBytes.MARSHALLER)
          .build();

  private final ServeHarness serve;
  private final GrpcJavaClient client;

  AdsLimitsTest() throws Exception {
    serve = new ServeHarness();
    client = new GrpcJavaClient(serve.socket());
  }

  @AfterEach
  void close() throws Exception {
    client.close();
    serve.close();
  }

  /** Sends {@code message} on a new ADS stream and returns the status the stream ends with. */
  private Status statusAfter(byte[] message) throws Exception {
    return statusAfter(message, CallOptions.DEFAULT);
  }

  private Status statusAfter(byte[] message, CallOptions options) throws Exception {
    CompletableFuture<Status> closed = new CompletableFuture<>();
    ClientCall<byte[], byte[]> call =
        client.channel().newCall(RAW, options.withDeadlineAfter(10, TimeUnit.SECONDS));
    call.start(
        new ClientCall.Listener<>() {
          @Override
          public void onClose(Status status, Metadata trailers) {
            closed.complete(status);
          }
        },
        new Metadata());
    call.request(10);
    call.sendMessage(message);
    return closed.get(15, TimeUnit.SECONDS);
  }

  @Test
  void aMalformedRequestEndsTheStreamWithInvalidArgument() throws Exception {
    // Field 1 (version_info) as a length-delimited string whose length runs past the end.
    Status status = statusAfter(new byte[] {0x0a, 0x7f, 'x'});
    assertThat(status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
  }

  @Test
  void aRequestOverFourMebibytesIsRefusedBeforeItIsRead() throws Exception {
    DiscoveryRequest huge =
        DiscoveryRequest.newBuilder()
            .setTypeUrl(XdsType.ENDPOINT.typeUrl())
            .setVersionInfo("x".repeat(XdsServer.MAX_REQUEST_BYTES))
            .build();
    Status status = statusAfter(huge.toByteArray());
    assertThat(status.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
  }

  @Test
  void aGzipBombIsCutAtTheRequestLimitWhileDecompressing() throws Exception {
    DiscoveryRequest bomb =
        DiscoveryRequest.newBuilder()
            .setTypeUrl(XdsType.ENDPOINT.typeUrl())
            .setVersionInfo("0".repeat(XdsServer.MAX_REQUEST_BYTES + 1024))
            .build();
    Status status = statusAfter(bomb.toByteArray(), CallOptions.DEFAULT.withCompression("gzip"));
    assertThat(status.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(status.getDescription()).contains("decompresses");
  }

  @Test
  void aGzippedRequestIsRead() throws Exception {
    DiscoveryRequest request =
        DiscoveryRequest.newBuilder()
            .setTypeUrl(XdsType.LISTENER.typeUrl())
            .addResourceNames("cart.shop:8080")
            .build();
    assertThat(
            firstResponse(request.toByteArray(), CallOptions.DEFAULT.withCompression("gzip"))
                .getResourcesCount())
        .isEqualTo(1);
  }

  @Test
  void moreNamesThanAStreamMayFollowIsResourceExhausted() throws Exception {
    List<String> names = new ArrayList<>();
    for (int i = 0; i <= SotwStream.MAX_NAMES; i++) {
      names.add("s" + i + ".ns");
    }
    DiscoveryRequest tooMany =
        DiscoveryRequest.newBuilder()
            .setTypeUrl(XdsType.ENDPOINT.typeUrl())
            .addAllResourceNames(names)
            .build();
    assertThat(tooMany.getSerializedSize()).isLessThan(XdsServer.MAX_REQUEST_BYTES);
    Status status = statusAfter(tooMany.toByteArray());
    assertThat(status.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(status.getDescription()).contains("100000");
  }

  @Test
  void aWellFormedRequestIsAnswered() throws Exception {
    // The control: the raw path works, so the statuses above come from the checks.
    byte[] request =
        DiscoveryRequest.newBuilder()
            .setTypeUrl(XdsType.LISTENER.typeUrl())
            .addResourceNames("cart.shop:8080")
            .build()
            .toByteArray();
    assertThat(firstResponse(request, CallOptions.DEFAULT).getResourcesCount()).isEqualTo(1);
  }

  private DiscoveryResponse firstResponse(byte[] request, CallOptions options) throws Exception {
    CompletableFuture<DiscoveryResponse> first = new CompletableFuture<>();
    ClientCall<byte[], byte[]> call =
        client.channel().newCall(RAW, options.withDeadlineAfter(10, TimeUnit.SECONDS));
    call.start(
        new ClientCall.Listener<>() {
          @Override
          public void onMessage(byte[] message) {
            try {
              first.complete(DiscoveryResponse.parseFrom(message));
            } catch (IOException e) {
              first.completeExceptionally(e);
            }
          }

          @Override
          public void onClose(Status status, Metadata trailers) {
            first.completeExceptionally(status.asException());
          }
        },
        new Metadata());
    call.request(1);
    call.sendMessage(request);
    try {
      return first.get(15, TimeUnit.SECONDS);
    } finally {
      call.cancel("done", null);
    }
  }
}
