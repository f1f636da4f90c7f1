package dev.routesync.streams;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.vertx.core.Context;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The hub's bookkeeping: streams by connection, woken together, ended or dropped by connection. */
class StreamHubTest {

  private final Vertx vertx = Vertx.vertx();
  private final Context context = vertx.getOrCreateContext();
  private final AtomicInteger count = new AtomicInteger();
  private final List<Set<FakeStream>> drained = new ArrayList<>();
  private Consumer<FakeStream> forget;

  /** Records what the drain was handed; the test decides when each stream counts as ended. */
  private final StreamHub<String, FakeStream> hub =
      new StreamHub<>(
          (streams, ended) -> {
            drained.add(streams);
            forget = ended;
          },
          count::addAndGet);

  @AfterEach
  void closeVertx() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Test
  void wakesEveryStreamOfEveryConnectionAndCountsThem() {
    FakeStream a1 = new FakeStream(context);
    FakeStream a2 = new FakeStream(context);
    FakeStream b1 = new FakeStream(context);
    hub.add("a", a1);
    hub.add("a", a2);
    hub.add("b", b1);

    hub.wakeAll();
    hub.wakeAll();

    assertThat(List.of(a1.nudges.get(), a2.nudges.get(), b1.nudges.get())).containsExactly(2, 2, 2);
    assertThat(hub.size()).isEqualTo(3);
    assertThat(count).hasValue(3);
  }

  @Test
  void removingAStreamStopsItsWakesAndCountsItOnce() {
    FakeStream a1 = new FakeStream(context);
    FakeStream a2 = new FakeStream(context);
    hub.add("a", a1);
    hub.add("a", a2);

    hub.remove("a", a1);
    hub.remove("a", a1); // a second remove (closed, then the error handler) changes nothing
    hub.remove("b", a2); // not its connection
    hub.wakeAll();

    assertThat(a1.nudges).hasValue(0);
    assertThat(a2.nudges).hasValue(1);
    assertThat(hub.size()).isEqualTo(1);
    assertThat(count).hasValue(1);
  }

  @Test
  void droppingAConnectionClosesAndForgetsOnlyItsStreams() {
    FakeStream a1 = new FakeStream(context);
    FakeStream a2 = new FakeStream(context);
    FakeStream b1 = new FakeStream(context);
    hub.add("a", a1);
    hub.add("a", a2);
    hub.add("b", b1);

    hub.dropStreamsOf("a");
    hub.dropStreamsOf("never-seen");

    assertThat(hub.size()).isEqualTo(1);
    assertThat(count).hasValue(1);
    // Closed on their own context, where everything else of a stream runs.
    await().atMost(Duration.ofSeconds(10)).until(() -> a1.closedOnContext && a2.closedOnContext);
    assertThat(b1.closes).hasValue(0);
    hub.wakeAll();
    assertThat(List.of(a1.nudges.get(), a2.nudges.get(), b1.nudges.get())).containsExactly(0, 0, 1);
  }

  @Test
  void endingAConnectionHandsAllItsStreamsToTheDrainAndForgetsEachAsItEnds() {
    FakeStream a1 = new FakeStream(context);
    FakeStream a2 = new FakeStream(context);
    FakeStream b1 = new FakeStream(context);
    hub.add("a", a1);
    hub.add("a", a2);
    hub.add("b", b1);

    hub.endStreamsOf("a");

    assertThat(drained).containsExactly(Set.of(a1, a2));
    // Until the drain says a stream ended, the hub still holds (and wakes) it.
    assertThat(hub.size()).isEqualTo(3);
    forget.accept(a1);
    assertThat(hub.size()).isEqualTo(2);
    assertThat(count).hasValue(2);
    forget.accept(a2);
    forget.accept(a2);
    assertThat(hub.size()).isEqualTo(1);
    assertThat(count).hasValue(1);

    hub.endStreamsOf("a"); // nothing left there: the drain is not called again
    hub.endStreamsOf("b");
    forget.accept(b1);

    assertThat(drained).containsExactly(Set.of(a1, a2), Set.of(b1));
    assertThat(hub.size()).isZero();
    assertThat(count).hasValue(0);
  }

  @Test
  void aStreamAddedAfterItsConnectionEmptiedIsKeptAgain() {
    FakeStream first = new FakeStream(context);
    FakeStream second = new FakeStream(context);
    hub.add("a", first);
    hub.remove("a", first);
    hub.add("a", second);

    hub.wakeAll();

    assertThat(second.nudges).hasValue(1);
    assertThat(hub.size()).isEqualTo(1);
  }

  private static final class FakeStream implements HubStream {
    private final Context context;
    final AtomicInteger nudges = new AtomicInteger();
    final AtomicInteger closes = new AtomicInteger();
    volatile boolean closedOnContext;

    FakeStream(Context context) {
      this.context = context;
    }

    @Override
    public void nudge() {
      nudges.incrementAndGet();
    }

    @Override
    public Context context() {
      return context;
    }

    @Override
    public void closed() {
      closes.incrementAndGet();
      closedOnContext = Vertx.currentContext() == context;
    }
  }
}
