package dev.routesync.serve;

import static dev.routesync.testing.TableStates.states;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import dev.routesync.api.v1.ResolveRequest;
import dev.routesync.observe.Metrics;
import dev.routesync.table.Freshness;
import dev.routesync.table.TableTrust;
import dev.routesync.table.TableWriter;
import dev.routesync.testing.Http1;
import dev.routesync.testing.LogCapture;
import dev.routesync.testing.RawConnection;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --listen-tcp}: the same gRPC and HTTP API on loopback, read by independent clients
 * (grpc-java with a deadline, the JDK's HTTP/1.1 client through {@link Http1}).
 */
@ExtendWith(VertxExtension.class)
@Timeout(60)
class TcpListenerTest {

  @TempDir Path dir;

  private ApiServer listening(Vertx vertx) throws Exception {
    TableWriter table = new TableWriter(Clock.systemUTC(), 16);
    table.publish(
        states(Map.of(new dev.routesync.table.ServiceKey("shop", "cart"), List.of())), List.of());
    ApiServer server =
        new ApiServer(
            vertx,
            table,
            Freshness.unwatched(TableTrust.synced()),
            new Metrics(new SimpleMeterRegistry()).serve(),
            new Readiness(),
            ApiServerOptions.onSocket(dir.resolve("api.sock"))
                .withTcpAddress(
                    Optional.of(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)))
                .withReflection(false));
    server.listen().await(10, TimeUnit.SECONDS);
    return server;
  }

  @Test
  void servesGrpcAndHttpOnLoopbackToo(Vertx vertx) throws Exception {
    ApiServer server = listening(vertx);
    ManagedChannel channel =
        NettyChannelBuilder.forAddress("127.0.0.1", server.tcpPort()).usePlaintext().build();
    try {
      var cart =
          ClientCalls.blockingUnaryCall(
              channel,
              dev.routesync.testing.GrpcJavaClient.RESOLVE,
              io.grpc.CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS),
              ResolveRequest.newBuilder().setNamespace("shop").setName("cart").build());
      assertThat(cart.getName()).isEqualTo("cart");
      HttpResponse<String> http =
          Http1.get("http://127.0.0.1:" + server.tcpPort() + "/v1/services/shop/cart");
      assertThat(http.statusCode()).isEqualTo(200);
      assertThat(http.body()).contains("\"name\":\"cart\"");
    } finally {
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      server.shutdown(Duration.ZERO).await(10, TimeUnit.SECONDS);
    }
  }

  /**
   * The socket accepts any authority ({@link AnyAuthority}); TCP keeps Vert.x's check, as there an
   * authority names a real host: a path is reset ({@code PROTOCOL_ERROR}), a %-encoded one drops
   * the connection (Vert.x's parser throws), a path {@code Host} on HTTP/1.1 gets a 400.
   */
  @Test
  void anAuthorityThatIsNoHostIsStillRefusedOnTcp(Vertx vertx) throws Exception {
    ApiServer server = listening(vertx);
    try {
      // Vert.x closes the connection on the %-encoded one; grpc-java reports that close one of two
      // ways, depending on whether its call had started when the close arrived.
      Map<String, java.util.Set<String>> refusals =
          Map.of(
              "/tmp/a.sock",
                  java.util.Set.of(
                      "INTERNAL: RST_STREAM closed stream. HTTP/2 error code: PROTOCOL_ERROR"),
              "%2Ftmp%2Fa.sock",
                  java.util.Set.of(
                      "UNAVAILABLE: Network closed for unknown reason", "UNKNOWN: channel closed"));
      for (Map.Entry<String, java.util.Set<String>> refusal : refusals.entrySet()) {
        ManagedChannel channel =
            NettyChannelBuilder.forAddress("127.0.0.1", server.tcpPort())
                .overrideAuthority(refusal.getKey())
                .usePlaintext()
                .build();
        try {
          assertThatThrownBy(
                  () ->
                      ClientCalls.blockingUnaryCall(
                          channel,
                          dev.routesync.testing.GrpcJavaClient.RESOLVE,
                          io.grpc.CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS),
                          ResolveRequest.newBuilder().setNamespace("shop").setName("cart").build()))
              .as(":authority %s on TCP", refusal.getKey())
              .isInstanceOf(StatusRuntimeException.class)
              .satisfies(error -> assertThat(refusal.getValue()).contains(error.getMessage()));
        } finally {
          channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        }
      }
      try (RawConnection http = RawConnection.tcp(server.tcpPort())) {
        String answer =
            http.write(
                    "GET /v1/services/shop/cart HTTP/1.1\r\nHost: /tmp/a.sock\r\n"
                        + "Connection: close\r\n\r\n")
                .readToEnd(Duration.ofSeconds(10));
        assertThat(answer).startsWith("HTTP/1.1 400 ");
      }
    } finally {
      server.shutdown(Duration.ZERO).await(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void anHttp1RequestWithoutAHostIsAJson400NotAnErrorLogLine(Vertx vertx) throws Exception {
    ApiServer server = listening(vertx);
    try (LogCapture web = new LogCapture("io.vertx.ext.web", Level.DEBUG)) {
      for (String host : new String[] {"Host: /tmp/a.sock\r\n", ""}) {
        try (RawConnection http = RawConnection.tcp(server.tcpPort())) {
          String answer =
              http.write(
                      "GET /v1/services/shop/cart HTTP/1.1\r\n"
                          + host
                          + "Connection: close\r\n\r\n")
                  .readToEnd(Duration.ofSeconds(10));
          assertThat(answer).as(host).startsWith("HTTP/1.1 400 ");
          assertThat(answer).contains("application/json").contains("\"status\":400");
        }
      }
      // A client's bad request is its own business: one ERROR line each would be a log flood.
      assertThat(web.atLeast(Level.WARN)).isEmpty();
    } finally {
      server.shutdown(Duration.ZERO).await(10, TimeUnit.SECONDS);
    }
  }
}
