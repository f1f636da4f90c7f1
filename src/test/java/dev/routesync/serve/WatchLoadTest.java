package dev.routesync.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.routesync.api.v1.WatchEvent;
import dev.routesync.api.v1.WatchRequest;
import dev.routesync.testing.GrpcJavaClient;
import dev.routesync.testing.ServeHarness;
import dev.routesync.testing.WatchRecorder;
import io.grpc.CallOptions;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ClientResponseObserver;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Many subscribers, and one that cannot keep up. */
class WatchLoadTest {

  private static final Duration WAIT = Duration.ofSeconds(30);

  @Test
  void aHundredConcurrentWatchersConvergeToTheSameFinalTable() throws Exception {
    try (ServeHarness serve = new ServeHarness();
        GrpcJavaClient grpc = new GrpcJavaClient(serve.socket())) {
      serve.put("shop", "seed", 1);
      List<WatchRecorder> watchers = grpc.watchAll(100, WAIT);
      assertThat(serve.server().watchStreams()).isEqualTo(100);
      for (int i = 0; i < 500; i++) {
        serve.put("shop", "svc-" + (i % 40), i % 7 + 1);
        if (i % 50 == 49) {
          serve.remove("shop", "svc-" + (i % 40));
        }
      }
      long finalVersion = serve.table().version();
      await()
          .atMost(WAIT)
          .until(() -> watchers.stream().allMatch(w -> w.version() == finalVersion));
      Map<String, ?> expected = watchers.get(0).state();
      assertThat(expected).hasSize(serve.table().serviceCount());
      for (WatchRecorder watcher : watchers) {
        assertThat(watcher.state()).isEqualTo(expected);
        assertThat(watcher.ended()).isNull();
      }
    }
  }

  @Test
  void aSlowSubscriberEndsWithTheExactFinalStateInFewMessages() throws Exception {
    try (ServeHarness serve = new ServeHarness();
        GrpcJavaClient grpc = new GrpcJavaClient(serve.socket())) {
      serve.put("shop", "seed", 1);
      SlowWatcher slow = new SlowWatcher();
      ClientCalls.asyncServerStreamingCall(
          grpc.channel()
              .newCall(
                  GrpcJavaClient.WATCH,
                  CallOptions.DEFAULT.withDeadlineAfter(
                      GrpcJavaClient.WATCH_DEADLINE.toMillis(), TimeUnit.MILLISECONDS)),
          WatchRequest.getDefaultInstance(),
          slow);
      await().atMost(WAIT).until(() -> slow.recorder.events().size() == 1);

      // 10,000 updates while the subscriber takes nothing: the server holds no queue for it.
      int updates = 10_000;
      for (int i = 0; i < updates; i++) {
        serve.put("shop", "svc-" + (i % 50), i % 9 + 1);
      }
      long finalVersion = serve.table().version();
      slow.drain(); // now it reads as fast as it can
      await().atMost(WAIT).until(() -> slow.recorder.version() == finalVersion);

      Map<String, ?> state = slow.recorder.state();
      assertThat(state).hasSize(51);
      for (int s = 0; s < 50; s++) {
        int last = updates - 50 + s; // the last update that touched svc-s
        assertThat(slow.recorder.state().get("shop/svc-" + s).getEndpointsCount())
            .isEqualTo(last % 9 + 1);
      }
      // What the HTTP/2 window (64 KiB) held, then one message with the latest state of what
      // changed: far fewer messages than versions, and nothing queued beyond the window.
      System.out.printf(
          "slow subscriber: %d updates, %d messages received%n",
          updates, slow.recorder.events().size());
      assertThat(slow.recorder.events().size()).isLessThan(updates / 20);
      assertThat(
              serve.counter("routesync.watch.lagged", "how", "coalesced")
                  + serve.counter("routesync.watch.lagged", "how", "reset"))
          .isPositive();
    }
  }

  /** Requests one message, then nothing until {@link #drain}: a sidecar stuck in GC. */
  private static final class SlowWatcher
      implements ClientResponseObserver<WatchRequest, WatchEvent> {
    final WatchRecorder recorder = new WatchRecorder();
    private final AtomicInteger wanted = new AtomicInteger(1);
    private volatile ClientCallStreamObserver<WatchRequest> call;
    private volatile boolean draining;

    @Override
    public void beforeStart(ClientCallStreamObserver<WatchRequest> requestStream) {
      call = requestStream;
      requestStream.disableAutoRequestWithInitial(1);
    }

    void drain() {
      draining = true;
      call.request(1);
    }

    @Override
    public void onNext(WatchEvent event) {
      recorder.onNext(event);
      wanted.decrementAndGet();
      if (draining) {
        call.request(1);
      }
    }

    @Override
    public void onError(Throwable error) {
      recorder.onError(error);
    }

    @Override
    public void onCompleted() {
      recorder.onCompleted();
    }
  }
}
