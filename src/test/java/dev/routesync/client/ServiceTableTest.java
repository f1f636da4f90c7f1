package dev.routesync.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.api.v1.ListResponse;
import org.junit.jupiter.api.Test;

class ServiceTableTest {

  @Test
  void showsOneRowPerServiceWithEndpointAndReadyCountsAndItsVersion() {
    assertThat(ServiceTable.render(Messages.list()))
        .isEqualTo(
            """
            NAMESPACE   NAME         ENDPOINTS   READY   VERSION
            billing     ledger-api   0           0       7
            shop        cart         3           2       40
            """);
  }

  @Test
  void printsNothingWhenTheListIsEmpty() {
    assertThat(ServiceTable.render(ListResponse.newBuilder().setVersion(3).build())).isEmpty();
  }

  @Test
  void printsVersionsAboveLongMaxValueAsUnsigned() {
    ListResponse list =
        ListResponse.newBuilder().addServices(Messages.service("a", "b", -1L)).build();

    assertThat(ServiceTable.render(list)).contains("18446744073709551615");
  }
}
