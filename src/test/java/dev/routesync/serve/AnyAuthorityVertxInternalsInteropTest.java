package dev.routesync.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.routesync.api.v1.ListResponse;
import dev.routesync.api.v1.ResolveRequest;
import dev.routesync.api.v1.ServiceEndpoints;
import dev.routesync.api.v1.StatusRequest;
import dev.routesync.api.v1.WatchRequest;
import dev.routesync.testing.GrpcJavaClient;
import dev.routesync.testing.RawConnection;
import dev.routesync.testing.RawH2;
import dev.routesync.testing.ServeHarness;
import dev.routesync.testing.WatchRecorder;
import io.grpc.CallOptions;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.stub.ClientCalls;
import io.netty.handler.codec.http2.Http2FrameTypes;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Guards a Vert.x internal. Vert.x 5.0.7 rejects the {@code :authority} that gRPC clients send on a
 * Unix socket (the path; %-encoded from C-core), and {@link AnyAuthority} gets around it through
 * Vert.x's implementation classes ({@code ConnectionBase#channel()}) and the order in which Vert.x
 * sets its HTTP/2 frame listener and calls the connection handler. If this fails after a Vert.x
 * upgrade, those internals moved: read {@link AnyAuthority}'s comment, and see first whether the
 * new Vert.x accepts these authorities by itself (then the adapter can go).
 *
 * <p>The clients are real and unmodified: grpc-java with its default settings (as a sidecar, or a
 * grpc-java xDS client whose bootstrap says {@code unix:///path}, connects), and hand-written
 * frames where the bytes matter.
 */
@Timeout(60)
class AnyAuthorityVertxInternalsInteropTest {

  private static final Duration WAIT = Duration.ofSeconds(10);

  private ServeHarness serve;

  @BeforeEach
  void start() throws Exception {
    serve = new ServeHarness();
    serve.put("shop", "cart", 2);
  }

  @AfterEach
  void stop() throws Exception {
    serve.close();
  }

  @Test
  void grpcJavaWithDefaultSettingsResolvesListsAndWatchesOverTheSocket() throws Exception {
    try (GrpcJavaClient grpc = new GrpcJavaClient(serve.socket())) {
      assertThat(grpc.channel().authority()).isEqualTo(serve.socket().toString());

      ServiceEndpoints cart = grpc.resolve("shop", "cart");
      assertThat(cart.getEndpointsList()).hasSize(2);
      ListResponse shop = grpc.list("shop");
      assertThat(shop.getServicesList()).extracting(ServiceEndpoints::getName).contains("cart");

      WatchRecorder watcher = new WatchRecorder();
      grpc.watch(WatchRequest.newBuilder().setNamespace("shop").build(), watcher);
      await().atMost(WAIT).until(() -> watcher.state().containsKey("shop/cart"));
      serve.put("shop", "cart", 3);
      await().atMost(WAIT).until(() -> watcher.state().get("shop/cart").getEndpointsCount() == 3);
      assertThat(watcher.ended()).isNull();
    }
  }

  /** The channel grpc-java's xDS client opens for a bootstrap's {@code server_uri}. */
  @Test
  void grpcJavaWithAUnixTargetIsServed() throws Exception {
    ManagedChannel channel =
        Grpc.newChannelBuilder("unix://" + serve.socket(), InsecureChannelCredentials.create())
            .build();
    try {
      assertThat(channel.authority()).isEqualTo(serve.socket().toString());
      ServiceEndpoints cart =
          ClientCalls.blockingUnaryCall(
              channel,
              GrpcJavaClient.RESOLVE,
              CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS),
              ResolveRequest.newBuilder().setNamespace("shop").setName("cart").build());
      assertThat(cart.getEndpointsList()).hasSize(2);
    } finally {
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  /** What C-core clients (C++, Python, PHP, Ruby) send on a Unix socket. */
  @Test
  void aPercentEncodedPathAsAuthorityIsAnswered() throws Exception {
    String encoded = serve.socket().toString().replace("/", "%2F");
    try (GrpcJavaClient grpc = new GrpcJavaClient(serve.socket(), encoded)) {
      assertThat(grpc.resolve("shop", "cart").getEndpointsList()).hasSize(2);
      assertThat(grpc.status().getServiceCount()).isEqualTo(1);
    }
  }

  /**
   * The preface, SETTINGS and a request with the path as authority in one write, so the server
   * decodes the request in the same read as the SETTINGS that makes Vert.x call the connection
   * handler: the adapter must be in place by then.
   */
  @Test
  void aRequestInTheSameReadAsThePrefaceIsAnswered() throws Exception {
    for (String authority :
        List.of(serve.socket().toString(), serve.socket().toString().replace("/", "%2F"))) {
      try (RawConnection connection = RawConnection.unix(serve.socket())) {
        String received =
            connection
                .write(RawH2.unary("Status", authority, StatusRequest.getDefaultInstance()))
                .readUntil(bytes -> RawH2.ended(bytes, 1), WAIT);
        List<RawH2.Frame> frames = RawH2.frames(received);
        assertThat(frames)
            .as("answered, not reset or dropped, with :authority %s", authority)
            .noneMatch(frame -> frame.type() == Http2FrameTypes.RST_STREAM)
            .noneMatch(frame -> frame.type() == Http2FrameTypes.GO_AWAY)
            .anyMatch(
                frame ->
                    frame.is(Http2FrameTypes.HEADERS, 1)
                        && "0".equals(frame.headers().get("grpc-status")));
      }
    }
  }

  /**
   * HTTP/1.1 as {@code curl --unix-socket} sends it, and with the Hosts other clients send (the
   * path; %-encoded, as Python's requests-unixsocket does; none): all served, the first request of
   * a connection and the ones after it (two pipelined in one write).
   */
  @Test
  void httpOnTheSocketIsServedWhateverItsHost() throws Exception {
    String path = serve.socket().toString();
    for (String host :
        List.of(
            "Host: localhost\r\n",
            "Host: " + path + "\r\n",
            "Host: " + path.replace("/", "%2F") + "\r\n",
            "Host: example.com:8080\r\n",
            "")) {
      String request = "GET /v1/services/shop/cart HTTP/1.1\r\n" + host;
      try (RawConnection connection = RawConnection.unix(serve.socket())) {
        String answers =
            connection
                .write(request + "\r\n" + request + "Connection: close\r\n\r\n")
                .readToEnd(WAIT);
        assertThat(answers.split("HTTP/1.1 ", -1))
            .as("two answers to [%s]", host.strip())
            .hasSize(3)
            .allSatisfy(
                answer -> {
                  if (!answer.isEmpty()) {
                    assertThat(answer).startsWith("200 OK").contains("\"name\":\"cart\"");
                  }
                });
      }
    }
  }
}
