package dev.routesync.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.routesync.api.v1.ServiceRef;
import dev.routesync.api.v1.WatchEvent;
import dev.routesync.api.v1.WatchRequest;
import dev.routesync.table.RoutingTable;
import dev.routesync.testing.GrpcJavaClient;
import dev.routesync.testing.ServeHarness;
import dev.routesync.testing.WatchRecorder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A Watch opened before the agent has a table it may serve is held open without a message; its
 * first message is built from the table the trust vouches for (or a newer one), never from the
 * empty placeholder, and no version published around the moment of trust is lost.
 */
@Timeout(60)
class WatchBeforeSyncTest {

  private static final Duration WAIT = Duration.ofSeconds(10);

  private ServeHarness serve;
  private GrpcJavaClient grpc;

  @BeforeEach
  void start() throws Exception {
    serve = ServeHarness.unsynced();
    grpc = new GrpcJavaClient(serve.socket());
  }

  @AfterEach
  void stop() throws Exception {
    grpc.close();
    serve.close();
  }

  @Test
  void theFirstMessageIsTheSyncedTableIncludingWhatWasPublishedBeforeTrust() {
    WatchRecorder all = new WatchRecorder();
    grpc.watch(WatchRequest.getDefaultInstance(), all);
    // A version seen from an agent before a restart: not in this table's delta log.
    WatchRecorder resuming = new WatchRecorder();
    grpc.watch(WatchRequest.newBuilder().setResumeFromVersion(42_000).build(), resuming);
    WatchRecorder shop = new WatchRecorder();
    grpc.watch(WatchRequest.newBuilder().setNamespace("shop").build(), shop);
    WatchRecorder one = new WatchRecorder();
    grpc.watch(
        WatchRequest.newBuilder()
            .addServices(ServiceRef.newBuilder().setNamespace("billing").setName("ledger"))
            .build(),
        one);
    List<WatchRecorder> watchers = List.of(all, resuming, shop, one);
    await().atMost(WAIT).until(() -> serve.server().watchStreams() == watchers.size());

    // The initial sync's flush publishes while the table is not trusted yet; the trust comes
    // right after. Both publishes happen after the streams subscribed.
    serve.put("shop", "cart", 2);
    RoutingTable synced = serve.put("billing", "ledger", 1);
    serve.markSynced();

    for (WatchRecorder watcher : watchers) {
      await().atMost(WAIT).until(() -> !watcher.events().isEmpty());
    }
    for (WatchRecorder watcher : List.of(all, resuming)) {
      WatchEvent first = watcher.events().get(0);
      assertThat(first.getVersion()).isEqualTo(synced.version());
      assertThat(first.getReset()).isTrue();
      assertThat(first.getUpsertedList())
          .extracting(s -> s.getNamespace() + "/" + s.getName())
          .containsExactly("billing/ledger", "shop/cart");
    }
    assertThat(shop.events().get(0).getUpsertedList())
        .extracting(s -> s.getNamespace() + "/" + s.getName())
        .containsExactly("shop/cart");
    assertThat(one.events().get(0).getUpsertedList())
        .extracting(s -> s.getNamespace() + "/" + s.getName())
        .containsExactly("billing/ledger");

    // And the streams go on as usual.
    RoutingTable next = serve.put("shop", "cart", 3);
    await().atMost(WAIT).until(() -> all.version() == next.version());
    assertThat(all.state().get("shop/cart").getEndpointsCount()).isEqualTo(3);
  }

  @Test
  void streamsOpenedBeforeAndWhileTrustIsRaisedAllStartFromATrustedTableAndConverge()
      throws Exception {
    List<WatchRecorder> watchers = new ArrayList<>();
    openWatches(20, watchers);
    await().atMost(WAIT).until(() -> serve.server().watchStreams() == 20);
    // Publishing, then the trust, then more publishing, while 20 more streams subscribe.
    CompletableFuture<RoutingTable> writer =
        CompletableFuture.supplyAsync(
            () -> {
              RoutingTable synced = null;
              for (int i = 1; i <= 20; i++) {
                synced = serve.put("shop", "svc-" + i, i % 3 + 1);
              }
              serve.markSynced();
              for (int i = 1; i <= 20; i++) {
                serve.put("shop", "after-" + i, 1);
              }
              return synced;
            });
    openWatches(20, watchers);
    RoutingTable synced = writer.get(20, TimeUnit.SECONDS);
    RoutingTable last = serve.table();

    for (WatchRecorder watcher : watchers) {
      await().atMost(WAIT).until(() -> watcher.version() == last.version());
      WatchEvent first = watcher.events().get(0);
      assertThat(first.getReset()).isTrue();
      assertThat(first.getVersion()).isGreaterThanOrEqualTo(synced.version());
      assertThat(first.getUpsertedCount()).isGreaterThanOrEqualTo(synced.serviceCount());
      assertThat(watcher.state()).hasSize(last.serviceCount());
    }
  }

  private void openWatches(int count, List<WatchRecorder> into) {
    for (int i = 0; i < count; i++) {
      WatchRecorder watcher = new WatchRecorder();
      grpc.watch(WatchRequest.getDefaultInstance(), watcher);
      into.add(watcher);
    }
  }
}
