package dev.routesync.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.routesync.api.v1.WatchRequest;
import dev.routesync.testing.AdsClient;
import dev.routesync.testing.GrpcJavaClient;
import dev.routesync.testing.RawConnection;
import dev.routesync.testing.RawH2;
import dev.routesync.testing.ServeHarness;
import dev.routesync.testing.WatchRecorder;
import io.netty.handler.codec.http2.Http2FrameTypes;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The body timeout: a call whose request message never comes is cancelled, and what the client
 * gets; calls whose request has arrived, and calls whose client side streams (ADS), are not cut.
 */
@Timeout(60)
class BodyTimeoutTest {

  private static final Duration LONG = Duration.ofSeconds(30);
  private static final Duration BODY = Duration.ofMillis(500);
  private static final ConnectionLimits LIMITS = new ConnectionLimits(16, LONG, LONG, BODY);

  @Test
  void aUnaryCallWhoseRequestNeverComesGetsDeadlineExceededWithinTheLimit() throws Exception {
    try (ServeHarness serve = new ServeHarness(LIMITS);
        RawConnection connection = RawConnection.unix(serve.socket())) {
      long start = System.nanoTime();
      String received =
          connection
              .write(RawH2.headersWithoutBody("List"))
              .readUntil(
                  bytes ->
                      RawH2.frames(bytes).stream().anyMatch(f -> f.stream() == 1 && f.endStream()),
                  Duration.ofSeconds(5));
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      List<RawH2.Frame> frames = RawH2.frames(received);
      RawH2.Frame answer =
          frames.stream().filter(f -> f.is(Http2FrameTypes.HEADERS, 1)).findFirst().orElseThrow();
      assertThat(answer.endStream()).isTrue();
      assertThat(answer.headers()).containsEntry("grpc-status", "4");
      assertThat(answer.headers().get("grpc-message")).contains("request body not received");
      assertThat(took).isBetween(BODY.minusMillis(50), BODY.plusSeconds(2));
      // Then reset: the agent will not read the rest, and the stream no longer holds the
      // connection.
      String more =
          connection.readUntil(
              bytes ->
                  RawH2.frames(received + bytes).stream()
                      .anyMatch(f -> f.is(Http2FrameTypes.RST_STREAM, 1)),
              Duration.ofSeconds(5));
      assertThat(RawH2.frames(received + more))
          .anyMatch(f -> f.is(Http2FrameTypes.RST_STREAM, 1) && f.errorCode() == 0x8);
      assertThat(serve.counter("routesync.requests.body.timeouts", "listener", "socket"))
          .isEqualTo(1);
    }
  }

  @Test
  void anHttp1RequestWhoseBodyNeverComesIsAnsweredThenItsConnectionClosed() throws Exception {
    try (ServeHarness serve = new ServeHarness(LIMITS);
        RawConnection connection = RawConnection.unix(serve.socket())) {
      long start = System.nanoTime();
      String received =
          connection
              .write("GET /v1/services HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc")
              .readToEnd(Duration.ofSeconds(5));
      assertThat(received).startsWith("HTTP/1.1 200 ");
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(BODY.plusSeconds(2));
      assertThat(serve.counter("routesync.requests.body.timeouts", "listener", "socket"))
          .isEqualTo(1);
    }
  }

  @Test
  void aWatchWhoseRequestHasArrivedRunsPastTheBodyTimeout() throws Exception {
    try (ServeHarness serve = new ServeHarness(LIMITS);
        GrpcJavaClient grpc = new GrpcJavaClient(serve.socket())) {
      serve.put("shop", "cart", 1);
      WatchRecorder watcher = new WatchRecorder();
      grpc.watch(WatchRequest.getDefaultInstance(), watcher);
      await().atMost(Duration.ofSeconds(5)).until(() -> watcher.events().size() == 1);
      await()
          .during(BODY.multipliedBy(4))
          .atMost(BODY.multipliedBy(8))
          .until(() -> watcher.ended() == null);
      serve.put("shop", "cart", 2);
      await().atMost(Duration.ofSeconds(5)).until(() -> watcher.events().size() == 2);
      assertThat(serve.counter("routesync.requests.body.timeouts", "listener", "socket")).isZero();
    }
  }

  @Test
  void anAdsStreamWhoseClientSideStaysOpenIsNotCut() throws Exception {
    try (ServeHarness serve = new ServeHarness(LIMITS);
        GrpcJavaClient grpc = new GrpcJavaClient(serve.socket());
        AdsClient ads = AdsClient.open(grpc.channel(), AdsClient.node("n1", "z1"))) {
      serve.put("shop", "cart", 1);
      ads.subscribe(AdsClient.CDS);
      assertThat(ads.take(AdsClient.CDS)).isNotNull();
      // Several body timeouts with the client's side open, then it still answers.
      await().pollDelay(BODY.multipliedBy(4)).atMost(BODY.multipliedBy(8)).until(() -> true);
      ads.subscribe(AdsClient.LDS);
      assertThat(ads.take(AdsClient.LDS)).isNotNull();
      assertThat(serve.counter("routesync.requests.body.timeouts", "listener", "socket")).isZero();
    }
  }

  @Test
  void onlyClientStreamingCallsAreExempt() {
    assertThat(BodyDeadline.timed("/routesync.v1.Registry/List")).isTrue();
    assertThat(BodyDeadline.timed("/routesync.v1.Registry/Watch")).isTrue();
    assertThat(BodyDeadline.timed("/grpc.health.v1.Health/Check")).isTrue();
    assertThat(BodyDeadline.timed("/v1/services")).isTrue();
    assertThat(
            BodyDeadline.timed(
                "/envoy.service.discovery.v3.AggregatedDiscoveryService/StreamAggregatedResources"))
        .isFalse();
    assertThat(
            BodyDeadline.timed(
                "/envoy.service.discovery.v3.AggregatedDiscoveryService/DeltaAggregatedResources"))
        .isFalse();
    assertThat(BodyDeadline.timed("/grpc.reflection.v1.ServerReflection/ServerReflectionInfo"))
        .isFalse();
  }
}
