package dev.routesync.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.api.v1.ListResponse;
import dev.routesync.api.v1.ServiceEndpoints;
import org.junit.jupiter.api.Test;

class ServiceTableTest {

  @Test
  void showsOneRowPerServiceWithEndpointReadyAndPortCountsAndItsVersion() {
    assertThat(ServiceTable.render(Messages.list()))
        .isEqualTo(
            """
            NAMESPACE   NAME         ENDPOINTS   READY   PORTS                VERSION
            billing     ledger-api   0           0       <none>               7
            shop        cart         3           2       admin=2/2,http=2/2   40
            """);
  }

  /** The seed-002 incident: 8 pods listed ready in a {@code ports: null} slice. */
  @Test
  void aPortWithNoReadyEndpointShowsZeroOfTheListedAndReadyZero() {
    ServiceEndpoints.Builder quote = Messages.service("shop", "quote", 9).toBuilder();
    for (int i = 1; i <= 8; i++) {
      quote.addEndpoints(Messages.ready("10.0.0." + i, "node-a", "zone-a", "quote-" + i));
    }
    quote.addPortCounts(Messages.count("http", 80, 0, 8));

    assertThat(ServiceTable.render(ListResponse.newBuilder().addServices(quote).build()))
        .isEqualTo(
            """
            NAMESPACE   NAME    ENDPOINTS   READY   PORTS      VERSION
            shop        quote   8           0       http=0/8   9
            """);
  }

  @Test
  void readyIsTheWorstPortsCount() {
    ServiceEndpoints.Builder web = Messages.service("shop", "web", 3).toBuilder();
    for (int i = 1; i <= 8; i++) {
      web.addEndpoints(Messages.ready("10.0.0." + i, "node-a", "zone-a", "web-" + i));
    }
    web.addPortCounts(Messages.count("http", 80, 8, 8))
        .addPortCounts(Messages.count("metrics", 9090, 6, 8))
        .addPortCounts(Messages.count("", 0, 8, 8));

    assertThat(ServiceTable.render(ListResponse.newBuilder().addServices(web).build()))
        .contains("8           6       http=8/8,metrics=6/8,unnamed=8/8");
  }

  @Test
  void aServiceWithoutPortsIsCountedByItsReadyEndpoints() {
    ServiceEndpoints headless =
        Messages.service(
            "shop",
            "db",
            5,
            Messages.ready("10.0.0.1", "node-a", "zone-a", "db-0"),
            Messages.terminating("10.0.0.2"));

    assertThat(ServiceTable.render(ListResponse.newBuilder().addServices(headless).build()))
        .contains("db     2           1       <none>   5");
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
