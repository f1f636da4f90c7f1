package dev.routesync.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import dev.routesync.api.v1.ResolveRequest;
import dev.routesync.api.v1.ServiceEndpoints;
import dev.routesync.api.v1.ServiceRef;
import dev.routesync.api.v1.WatchRequest;
import dev.routesync.testing.GrpcJavaClient;
import dev.routesync.testing.LogCapture;
import dev.routesync.testing.RawConnection;
import dev.routesync.testing.RawH2;
import dev.routesync.testing.ServeHarness;
import dev.routesync.testing.WatchRecorder;
import io.grpc.ClientCall;
import io.grpc.ConnectivityState;
import io.grpc.Metadata;
import io.grpc.Status;
import io.vertx.junit5.Checkpoint;
import io.vertx.junit5.Timeout;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The seed's drain rules applied to the agent itself. The drain is a Vert.x future: what must hold
 * when it completes is checked in its callback, on the event loop, through the {@link
 * VertxTestContext}, so a failed drain or a broken rule fails the test there and then; each test
 * waits for it within a bound while its harness is still open.
 */
@ExtendWith(VertxExtension.class)
@Timeout(value = 60, timeUnit = TimeUnit.SECONDS)
class DrainTest {

  /**
   * Only stops a hang: generous, since a loaded machine is slow and speed is not what is tested.
   */
  private static final Duration HANG = Duration.ofSeconds(30);

  /** Waits for every checkpoint of {@code testContext}; rethrows what failed it. */
  private static void awaitCompletion(VertxTestContext testContext, Duration within)
      throws Throwable {
    assertThat(testContext.awaitCompletion(within.toMillis(), TimeUnit.MILLISECONDS))
        .as("completed within %s", within)
        .isTrue();
    if (testContext.failed()) {
      throw testContext.causeOfFailure();
    }
  }

  @Test
  void shutdownEndsEveryWatchCleanlyAndFinishesInFlightCallsWithoutWaitingForTheTimeout(
      VertxTestContext testContext) throws Throwable {
    // Far longer than HANG: a drain that waited for its timeout instead of for the last call
    // fails the bounded waits below, and no wall-clock figure is asserted.
    Duration timeout = Duration.ofMinutes(10);
    try (ServeHarness serve = new ServeHarness();
        GrpcJavaClient grpc = new GrpcJavaClient(serve.socket())) {
      serve.put("shop", "cart", 3);
      List<WatchRecorder> watchers = grpc.watchAll(100, Duration.ofSeconds(10));

      // Unary calls in flight: request sent, not yet half-closed when the drain starts.
      List<InFlight> inFlight = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        inFlight.add(new InFlight(grpc));
      }
      await().atMost(Duration.ofSeconds(10)).until(() -> serve.server().watchStreams() == 100);

      Checkpoint drained = testContext.checkpoint();
      serve
          .server()
          .shutdown(timeout)
          .onComplete(
              testContext.succeeding(
                  ignored ->
                      testContext.verify(
                          () -> {
                            assertThat(serve.socket()).doesNotExist();
                            drained.flag();
                          })));
      // Every Watch ends with OK (GOAWAY first, then a clean end), not a reset.
      await().atMost(HANG).until(() -> watchers.stream().allMatch(w -> w.ended() != null));
      for (WatchRecorder watcher : watchers) {
        assertThat(watcher.ended().getCode()).isEqualTo(Status.Code.OK);
      }
      inFlight.forEach(InFlight::finish);
      for (InFlight call : inFlight) {
        assertThat(call.result.get(10, TimeUnit.SECONDS).getName()).isEqualTo("cart");
      }
      // Done when the last call finished, not when the timeout ran out.
      awaitCompletion(testContext, HANG);
      // GOAWAY took the channel out of READY: new calls must go to the next agent.
      assertThat(grpc.channel().getState(false)).isNotEqualTo(ConnectivityState.READY);
    }
  }

  /**
   * Sidecars that stopped reading their socket: their streams are blocked when the drain ends them,
   * so the end cannot be written and the timeout closes their connections. That is the expected
   * outcome; an ERROR (Vert.x's "promise is null" NPE, one per stream) is not.
   */
  @Test
  void drainingWithWatchersThatNeverReadLogsNoError(VertxTestContext testContext) throws Throwable {
    Duration timeout = Duration.ofMillis(500);
    List<RawConnection> stuck = new ArrayList<>();
    try (LogCapture log = new LogCapture(org.slf4j.Logger.ROOT_LOGGER_NAME, Level.WARN);
        ServeHarness serve = new ServeHarness()) {
      serve.put("shop", "cart", 400);
      // Three streams that fill the socket, and one on a Service nothing publishes: it has nothing
      // unwritten itself, but its end would queue behind the others' bytes all the same.
      WatchRequest all = WatchRequest.getDefaultInstance();
      WatchRequest quiet =
          WatchRequest.newBuilder()
              .addServices(ServiceRef.newBuilder().setNamespace("shop").setName("quiet"))
              .build();
      for (int i = 0; i < 5; i++) {
        stuck.add(RawConnection.unix(serve.socket()).write(RawH2.watches(all, all, all, quiet)));
      }
      await().atMost(Duration.ofSeconds(10)).until(() -> serve.server().watchStreams() == 20);
      // Megabytes per stream, far more than the socket buffers hold: every stream is blocked.
      for (int i = 0; i < 100; i++) {
        serve.put("shop", "cart", 400 + i % 2);
      }
      Checkpoint drained = testContext.checkpoint();
      serve
          .server()
          .shutdown(timeout)
          .onComplete(testContext.succeeding(ignored -> drained.flag()));
      // The streams never end by themselves: only the timeout cutting the blocked connections
      // completes the drain inside HANG.
      awaitCompletion(testContext, HANG);
      // The cut connections take their streams with them.
      await().atMost(HANG).until(() -> serve.server().watchStreams() == 0);
      assertThat(log.atLeast(Level.ERROR)).isEmpty();
    } finally {
      for (RawConnection connection : stuck) {
        connection.close();
      }
    }
  }

  /** A Resolve whose request is sent but not yet half-closed. */
  private static final class InFlight {
    final CompletableFuture<ServiceEndpoints> result = new CompletableFuture<>();
    private final ClientCall<ResolveRequest, ServiceEndpoints> call;

    InFlight(GrpcJavaClient grpc) {
      call = grpc.channel().newCall(GrpcJavaClient.RESOLVE, grpc.options());
      call.start(
          new ClientCall.Listener<>() {
            @Override
            public void onMessage(ServiceEndpoints message) {
              result.complete(message);
            }

            @Override
            public void onClose(Status status, Metadata trailers) {
              if (!status.isOk()) {
                result.completeExceptionally(status.asRuntimeException());
              }
            }
          },
          new Metadata());
      call.request(1);
      call.sendMessage(ResolveRequest.newBuilder().setNamespace("shop").setName("cart").build());
    }

    void finish() {
      call.halfClose();
    }
  }
}
