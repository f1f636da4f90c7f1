package dev.routesync.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.api.v1.WatchEvent;
import org.junit.jupiter.api.Test;

class WatchEventTextTest {

  @Test
  void aSnapshotSaysResetAndListsEveryServiceWithItsEndpointCount() {
    assertThat(WatchEventText.render(Messages.snapshot()))
        .isEqualTo(
            """
            v42 reset services=2
              ~ billing/ledger-api endpoints=0
              ~ shop/cart endpoints=3 ports=admin=2/2,http=2/2
            """);
  }

  @Test
  void aChangeCountsUpsertsAndRemovalsThenListsThem() {
    assertThat(WatchEventText.render(Messages.change()))
        .isEqualTo(
            """
            v43 update upserted=1 removed=1
              ~ shop/cart endpoints=1
              - billing/ledger-api
            """);
  }

  @Test
  void anEmptySnapshotIsOneLine() {
    WatchEvent empty = WatchEvent.newBuilder().setVersion(1).setReset(true).build();

    assertThat(WatchEventText.render(empty)).isEqualTo("v1 reset services=0\n");
  }

  @Test
  void aServiceWithPortCountsShowsThemAsGetServicesDoes() {
    WatchEvent event =
        WatchEvent.newBuilder()
            .setVersion(9)
            .addUpserted(
                Messages.service(
                        "shop",
                        "quote",
                        9,
                        Messages.ready("10.0.0.1", "node-a", "zone-a", "quote-1"),
                        Messages.ready("10.0.0.2", "node-a", "zone-a", "quote-2"))
                    .toBuilder()
                    .addPortCounts(Messages.count("http", 80, 0, 2)))
            .build();

    assertThat(WatchEventText.render(event))
        .isEqualTo(
            """
            v9 update upserted=1 removed=0
              ~ shop/quote endpoints=2 ports=http=0/2
            """);
  }

  @Test
  void aLineSaysWhenTheTableTurnsStaleAndWhenItIsFreshAgain() {
    WatchEvent stale =
        WatchEvent.newBuilder()
            .setVersion(43)
            .setStale(true)
            .setSyncedAt(com.google.protobuf.Timestamp.newBuilder().setSeconds(1_796_133_723L))
            .build();
    assertThat(WatchEventText.staleness(false, stale))
        .isEqualTo(
            "# stale: not confirmed by the Kubernetes API server since 2026-12-01T14:02:03Z\n");
    assertThat(WatchEventText.staleness(true, stale)).as("said once").isEmpty();
    WatchEvent fresh = WatchEvent.newBuilder().setVersion(43).build();
    assertThat(WatchEventText.staleness(true, fresh))
        .isEqualTo("# fresh: confirmed by the Kubernetes API server again\n");
    assertThat(WatchEventText.staleness(false, fresh)).isEmpty();
  }
}
