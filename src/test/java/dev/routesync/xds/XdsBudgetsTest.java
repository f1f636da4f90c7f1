package dev.routesync.xds;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.testing.AdsClient;
import dev.routesync.testing.GrpcJavaClient;
import dev.routesync.testing.RawBytes;
import dev.routesync.testing.ServeHarness;
import io.envoyproxy.envoy.service.discovery.v3.DeltaDiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DeltaDiscoveryResponse;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryResponse;
import io.envoyproxy.envoy.service.discovery.v3.Resource;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The xDS server's memory limits ({@link XdsLimits}), set small here so that a few thousand names
 * cross them: what a client gets at each, and that a response too large for one message goes out in
 * parts where the protocol allows it.
 */
class XdsBudgetsTest {

  private static final int RESPONSE_BYTES = 64 * 1024;

  private static final XdsLimits LIMITS =
      new XdsLimits(3_000, 4_000, 6_000, RESPONSE_BYTES, 4L * RESPONSE_BYTES, 8L * RESPONSE_BYTES);

  private static final Duration WAIT = Duration.ofSeconds(10);

  private final ServeHarness serve;
  private final GrpcJavaClient grpc;

  XdsBudgetsTest() throws Exception {
    serve = ServeHarness.withXdsLimits(LIMITS);
    grpc = new GrpcJavaClient(serve.socket());
  }

  @AfterEach
  void close() throws Exception {
    grpc.close();
    serve.close();
  }

  @Test
  void aListenerResponsePastTheResponseLimitEndsTheStreamNamingTheLimit() throws Exception {
    RawStream stream = sotw();
    stream.send(request(XdsType.LISTENER, names(1_000, ":8080"), ""));
    Object first = stream.next();
    assertThat(first).isInstanceOf(Status.class);
    Status status = (Status) first;
    assertThat(status.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(status.getDescription()).contains("limit of " + RESPONSE_BYTES + " bytes");
  }

  @Test
  void anEndpointResponsePastTheLimitComesInPartsEachWithinIt() throws Exception {
    List<String> names = names(2_500, ".svc.cluster.local:80");
    RawStream stream = sotw();
    stream.send(request(XdsType.ENDPOINT, names, ""));
    Set<String> answered = new HashSet<>();
    int parts = 0;
    while (answered.size() < names.size()) {
      byte[] bytes = (byte[]) stream.next();
      assertThat(bytes.length).isLessThanOrEqualTo(RESPONSE_BYTES);
      DiscoveryResponse part = DiscoveryResponse.parseFrom(bytes);
      parts++;
      for (var assignment : AdsClient.assignments(part)) {
        answered.add(assignment.getClusterName());
      }
      stream.send(request(XdsType.ENDPOINT, names, part.getNonce()));
    }
    assertThat(parts).isGreaterThan(1);
    assertThat(answered).containsExactlyInAnyOrderElementsOf(names);
  }

  @Test
  void deltaResponsesPastTheLimitComeInParts() throws Exception {
    List<String> names = names(2_500, ".svc.cluster.local:80");
    RawStream stream = new RawStream(DELTA);
    stream.send(
        DeltaDiscoveryRequest.newBuilder()
            .setNode(AdsClient.node("delta", "zone-a"))
            .setTypeUrl(XdsType.CLUSTER.typeUrl())
            .addAllResourceNamesSubscribe(names)
            .build()
            .toByteArray());
    Set<String> answered = new HashSet<>();
    int parts = 0;
    while (answered.size() < names.size()) {
      byte[] bytes = (byte[]) stream.next();
      assertThat(bytes.length).isLessThanOrEqualTo(RESPONSE_BYTES);
      DeltaDiscoveryResponse part = DeltaDiscoveryResponse.parseFrom(bytes);
      parts++;
      for (Resource resource : part.getResourcesList()) {
        assertThat(answered.add(resource.getName())).as("sent once").isTrue();
      }
      stream.send(
          DeltaDiscoveryRequest.newBuilder()
              .setTypeUrl(XdsType.CLUSTER.typeUrl())
              .setResponseNonce(part.getNonce())
              .build()
              .toByteArray());
    }
    assertThat(parts).isGreaterThan(1);
    assertThat(answered).containsExactlyInAnyOrderElementsOf(names);
  }

  @Test
  void moreNamesOnOneStreamThanItsLimitIsResourceExhausted() throws Exception {
    RawStream stream = sotw();
    stream.send(request(XdsType.ENDPOINT, names(2_000, ":80"), ""));
    stream.next(); // answered: 2,000 is within the limit
    stream.send(request(XdsType.CLUSTER, names(1_001, ":80"), ""));
    Status status = stream.status();
    assertThat(status.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(status.getDescription()).contains("limit of 3000").contains("per stream");
  }

  @Test
  void onePeerCannotPassItsNamesLimitByOpeningMoreStreams() throws Exception {
    RawStream first = sotw();
    first.send(request(XdsType.ENDPOINT, names(2_500, ":80"), ""));
    first.next();
    // Another stream of the same uid, on another connection.
    try (GrpcJavaClient other = new GrpcJavaClient(serve.socket())) {
      RawStream second = new RawStream(other, SOTW);
      second.send(request(XdsType.ENDPOINT, names(2_000, ":81"), ""));
      Status status = second.status();
      assertThat(status.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
      assertThat(status.getDescription()).contains("limit of 4000").contains("per peer");
    }
    // The first stream's names go with it: the peer may subscribe them again elsewhere.
    first.cancel();
    Awaitility.await("the first stream's names released")
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              RawStream third = sotw();
              third.send(request(XdsType.ENDPOINT, names(2_500, ":82"), ""));
              assertThat(third.next()).isInstanceOf(byte[].class);
              third.cancel();
            });
  }

  private static final MethodDescriptor<byte[], byte[]> SOTW = raw("StreamAggregatedResources");
  private static final MethodDescriptor<byte[], byte[]> DELTA = raw("DeltaAggregatedResources");

  private RawStream sotw() {
    return new RawStream(SOTW);
  }

  private static List<String> names(int count, String suffix) {
    List<String> names = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      names.add("svc-" + i + ".shop" + suffix);
    }
    return names;
  }

  private static byte[] request(XdsType type, List<String> names, String nonce) {
    return DiscoveryRequest.newBuilder()
        .setNode(AdsClient.node("budget", "zone-a"))
        .setTypeUrl(type.typeUrl())
        .addAllResourceNames(names)
        .setResponseNonce(nonce)
        .build()
        .toByteArray();
  }

  private static MethodDescriptor<byte[], byte[]> raw(String method) {
    return MethodDescriptor.<byte[], byte[]>newBuilder()
        .setType(MethodDescriptor.MethodType.BIDI_STREAMING)
        .setFullMethodName("envoy.service.discovery.v3.AggregatedDiscoveryService/" + method)
        .setRequestMarshaller(RawBytes.MARSHALLER)
        .setResponseMarshaller(RawBytes.MARSHALLER)
        .build();
  }

  /** One raw stream: messages and the final status, in order, in one queue. */
  private final class RawStream {
    private final BlockingQueue<Object> received = new LinkedBlockingQueue<>();
    private final ClientCall<byte[], byte[]> call;

    RawStream(MethodDescriptor<byte[], byte[]> method) {
      this(grpc, method);
    }

    RawStream(GrpcJavaClient client, MethodDescriptor<byte[], byte[]> method) {
      call =
          client
              .channel()
              .newCall(method, CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS));
      call.start(
          new ClientCall.Listener<>() {
            @Override
            public void onMessage(byte[] message) {
              received.add(message);
              call.request(1);
            }

            @Override
            public void onClose(Status status, Metadata trailers) {
              received.add(status);
            }
          },
          new Metadata());
      call.request(1);
    }

    void send(byte[] message) {
      call.sendMessage(message);
    }

    /** The next message (a {@code byte[]}) or the status the stream ended with. */
    Object next() throws InterruptedException, IOException {
      Object next = received.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
      if (next == null) {
        throw new IOException("nothing received within " + WAIT);
      }
      return next;
    }

    /** The status the stream ends with, skipping messages. */
    Status status() throws InterruptedException, IOException {
      Object next;
      do {
        next = next();
      } while (!(next instanceof Status));
      return (Status) next;
    }

    void cancel() {
      call.cancel("done", null);
    }
  }
}
