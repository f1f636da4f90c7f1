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
              ~ shop/cart endpoints=3
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
}
