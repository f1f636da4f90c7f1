package dev.routesync.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.routesync.api.v1.WatchRequest;
import dev.routesync.testing.GrpcJavaClient;
import dev.routesync.testing.RawConnection;
import dev.routesync.testing.RawH2;
import dev.routesync.testing.ServeHarness;
import dev.routesync.testing.WatchRecorder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The socket listener's header timeout, idle timeout and connection cap. */
class ConnectionLimitsTest {

  private static final Duration SHORT = Duration.ofMillis(400);
  private static final Duration LONG = Duration.ofSeconds(30);
  private static final String REQUEST = "GET /v1/services HTTP/1.1\r\nHost: localhost\r\n\r\n";

  @Test
  void halfSentHeadersAndSilentClientsAreClosedAfterTheHeaderTimeout() throws Exception {
    try (ServeHarness serve = new ServeHarness(new ConnectionLimits(16, SHORT, LONG));
        RawConnection silent = RawConnection.unix(serve.socket());
        RawConnection http1 =
            RawConnection.unix(serve.socket()).write("GET /v1/services HTTP/1.1\r\nHost: x\r\n");
        RawConnection http2 = RawConnection.unix(serve.socket()).write(RawH2.halfSentHeaders())) {
      await().atMost(Duration.ofSeconds(5)).until(silent::closedByServer);
      await().atMost(Duration.ofSeconds(5)).until(http1::closedByServer);
      await().atMost(Duration.ofSeconds(5)).until(http2::closedByServer);
      assertThat(closed(serve, "header_timeout")).isEqualTo(3);
    }
  }

  @Test
  void aSlowSecondRequestOnAKeptAliveConnectionIsClosedAfterTheHeaderTimeout() throws Exception {
    try (ServeHarness serve = new ServeHarness(new ConnectionLimits(16, SHORT, LONG));
        RawConnection connection = RawConnection.unix(serve.socket())) {
      // The first request is answered; the second never finishes: closed long before idle (30 s).
      assertThat(connection.write(REQUEST).readUntilAnswered(Duration.ofSeconds(5)))
          .startsWith("HTTP/1.1 200 ");
      assertThat(
              connection.write("GET /v1/services HTTP/1.1\r\nHo").readToEnd(Duration.ofSeconds(5)))
          .isEmpty();
      assertThat(closed(serve, "header_timeout")).isEqualTo(1);
    }
  }

  @Test
  void anIdleKeptAliveConnectionIsClosedAfterTheIdleTimeout() throws Exception {
    try (ServeHarness serve = new ServeHarness(new ConnectionLimits(16, LONG, SHORT));
        RawConnection connection = RawConnection.unix(serve.socket())) {
      String answers = connection.write(REQUEST).readToEnd(Duration.ofSeconds(5));
      assertThat(answers).startsWith("HTTP/1.1 200 ");
      assertThat(closed(serve, "idle")).isEqualTo(1);
    }
  }

  @Test
  void anHttp2ConnectionWithoutStreamsIsClosedAfterTheIdleTimeout() throws Exception {
    try (ServeHarness serve = new ServeHarness(new ConnectionLimits(16, LONG, SHORT));
        GrpcJavaClient grpc = new GrpcJavaClient(serve.socket())) {
      serve.put("shop", "cart", 1);
      assertThat(grpc.list("shop").getServicesCount()).isEqualTo(1);
      await().atMost(Duration.ofSeconds(5)).until(() -> closed(serve, "idle") == 1);
      await().atMost(Duration.ofSeconds(5)).until(() -> open(serve) == 0);
      // The client reconnects for its next call.
      assertThat(grpc.list("shop").getServicesCount()).isEqualTo(1);
    }
  }

  @Test
  void anOpenWatchIsNeverCutForIdlenessWhileNothingIsPublished() throws Exception {
    try (ServeHarness serve = new ServeHarness(new ConnectionLimits(16, SHORT, SHORT));
        GrpcJavaClient grpc = new GrpcJavaClient(serve.socket())) {
      serve.put("shop", "cart", 1);
      WatchRecorder watcher = new WatchRecorder();
      grpc.watch(WatchRequest.getDefaultInstance(), watcher);
      await().atMost(Duration.ofSeconds(5)).until(() -> watcher.events().size() == 1);
      // Several idle timeouts without a byte on the connection.
      await()
          .during(SHORT.multipliedBy(5))
          .atMost(SHORT.multipliedBy(10))
          .until(() -> watcher.ended() == null && open(serve) == 1);
      serve.put("shop", "cart", 2);
      await().atMost(Duration.ofSeconds(5)).until(() -> watcher.events().size() == 2);
      assertThat(closed(serve, "idle")).isZero();
    }
  }

  @Test
  void connectionsOverTheCapAreClosedAtAcceptAndCounted() throws Exception {
    List<RawConnection> held = new ArrayList<>();
    // Each connection its own uid, so that the cap alone applies (one uid holds at most three
    // quarters of it: UidShareTest).
    AtomicInteger uids = new AtomicInteger(1000);
    try (ServeHarness serve =
        new ServeHarness(
            new ConnectionLimits(4, LONG, LONG),
            ConnectionGuards.withCredentials(
                channel -> {
                  int uid = uids.getAndIncrement();
                  return new Peer(1, uid, uid);
                }))) {
      for (int i = 0; i < 4; i++) {
        held.add(RawConnection.unix(serve.socket()).write("GET /v1/serv"));
      }
      await().atMost(Duration.ofSeconds(5)).until(() -> open(serve) == 4);
      try (RawConnection refused = RawConnection.unix(serve.socket())) {
        await().atMost(Duration.ofSeconds(5)).until(refused::closedByServer);
      }
      assertThat(serve.counter("routesync.connections.rejected", "listener", "socket"))
          .isEqualTo(1);
      // A slot freed is a slot taken.
      held.remove(0).close();
      await().atMost(Duration.ofSeconds(5)).until(() -> open(serve) == 3);
      try (RawConnection admitted = RawConnection.unix(serve.socket())) {
        String answer =
            admitted
                .write("GET /v1/services HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                .readToEnd(Duration.ofSeconds(5));
        assertThat(answer).startsWith("HTTP/1.1 200 ");
      }
    } finally {
      for (RawConnection connection : held) {
        connection.close();
      }
    }
  }

  @Test
  void halfOpenConnectionsDoNotStretchTheDrain() throws Exception {
    // Far past the bound on the wait below: a drain that waited for it would fail there, and no
    // wall-clock figure is asserted.
    Duration timeout = Duration.ofMinutes(5);
    try (ServeHarness serve = new ServeHarness();
        RawConnection silent = RawConnection.unix(serve.socket());
        RawConnection http1 =
            RawConnection.unix(serve.socket()).write("GET /v1/services HTTP/1.1\r\nHost: x\r\n");
        RawConnection http2 = RawConnection.unix(serve.socket()).write(RawH2.halfSentHeaders());
        RawConnection idle = RawConnection.unix(serve.socket())) {
      assertThat(idle.write(REQUEST).readUntilAnswered(Duration.ofSeconds(5)))
          .startsWith("HTTP/1.1 200 ");
      await().atMost(Duration.ofSeconds(5)).until(() -> open(serve) == 4);
      serve.server().shutdown(timeout).await(30, java.util.concurrent.TimeUnit.SECONDS);
      assertThat(silent.closedByServer()).isTrue();
      assertThat(http1.closedByServer()).isTrue();
      assertThat(http2.closedByServer()).isTrue();
      assertThat(idle.closedByServer()).isTrue();
    }
  }

  private static double closed(ServeHarness serve, String reason) {
    return serve.counter("routesync.connections.closed", "listener", "socket", "reason", reason);
  }

  private static double open(ServeHarness serve) {
    return serve
        .registry()
        .get("routesync.connections.open")
        .tag("listener", "socket")
        .gauge()
        .value();
  }
}
