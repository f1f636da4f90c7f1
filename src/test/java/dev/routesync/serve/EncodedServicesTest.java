package dev.routesync.serve;

import static dev.routesync.testing.TableStates.states;
import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.api.v1.ServiceEndpoints;
import dev.routesync.api.v1.ServiceRef;
import dev.routesync.api.v1.WatchEvent;
import dev.routesync.table.Endpoint;
import dev.routesync.table.Port;
import dev.routesync.table.RoutingTable;
import dev.routesync.table.ServiceKey;
import dev.routesync.table.TableWriter;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The shared Watch encodings stay bounded by the table and the recent versions. */
class EncodedServicesTest {

  private static final ServiceKey CART = new ServiceKey("shop", "cart");
  private static final ServiceKey LEDGER = new ServiceKey("bank", "ledger");

  private final TableWriter writer = new TableWriter(Clock.systemUTC(), 1024);
  private final EncodedServices encodings = new EncodedServices();

  private RoutingTable put(ServiceKey key, String ip) {
    RoutingTable table = writer.publish(states(Map.of(key, endpoints(ip))), List.of());
    encodings.published(table);
    return table;
  }

  private RoutingTable remove(ServiceKey key) {
    RoutingTable table = writer.publish(Map.of(), List.of(key));
    encodings.published(table);
    return table;
  }

  private static List<Endpoint> endpoints(String ip) {
    return List.of(
        new Endpoint(ip, List.of(new Port("http", 80, "TCP")), "z", "n", "p", true, true, false));
  }

  @Test
  void aServiceVersionIsEncodedOnceAndItsBytesAreTheMessage() throws Exception {
    RoutingTable table = put(CART, "10.0.0.1");
    var cart = table.get(CART).orElseThrow();
    byte[] first = encodings.encoded(cart);
    byte[] again = encodings.encoded(cart);
    assertThat(again).isSameAs(first);
    assertThat(encodings.encodes()).isEqualTo(1);
    assertThat(ServiceEndpoints.parseFrom(first)).isEqualTo(ProtoMapping.service(cart));
  }

  @Test
  void aNewVersionOrARemovalDropsTheOldEncoding() {
    RoutingTable table = put(CART, "10.0.0.1");
    encodings.encoded(table.get(CART).orElseThrow());
    assertThat(encodings.size()).isEqualTo(1);
    put(CART, "10.0.0.2");
    assertThat(encodings.size()).isZero();
    table = put(LEDGER, "10.0.0.3");
    encodings.encoded(table.get(LEDGER).orElseThrow());
    remove(LEDGER);
    assertThat(encodings.size()).isZero();
  }

  @Test
  void onlyTheLatestVersionsAreKept() {
    RoutingTable table = put(CART, "10.0.0.1");
    encodings.encoded(table.get(CART).orElseThrow());
    for (int i = 0; i < EncodedServices.RETAINED_VERSIONS; i++) {
      table = put(LEDGER, "10.1.0." + (i % 200 + 1));
    }
    // The cart changed more than RETAINED_VERSIONS versions ago: no longer kept, and encoding it
    // now (a late subscriber, a snapshot) does not keep it either.
    assertThat(encodings.size()).isZero();
    encodings.encoded(table.get(CART).orElseThrow());
    assertThat(encodings.size()).isZero();
  }

  @Test
  void overTheByteCapTheOldestGoAndTheNewestStay() {
    RoutingTable table = put(CART, "10.0.0.1");
    byte[] cart = encodings.encoded(table.get(CART).orElseThrow());
    EncodedServices small = new EncodedServices(cart.length + cart.length / 2);
    small.published(table);
    small.encoded(table.get(CART).orElseThrow());
    table = put(LEDGER, "10.0.0.2");
    small.published(table);
    small.encoded(table.get(LEDGER).orElseThrow());
    assertThat(small.size()).isEqualTo(1);
    long before = small.encodes();
    small.encoded(table.get(LEDGER).orElseThrow()); // the newest is the one kept
    assertThat(small.encodes()).isEqualTo(before);
  }

  @Test
  void anAssembledEventHasTheBytesProtobufWouldWrite() throws Exception {
    RoutingTable table = put(CART, "10.0.0.1");
    table = put(LEDGER, "10.0.0.2");
    var cart = table.get(CART).orElseThrow();
    var ledger = table.get(LEDGER).orElseThrow();
    Instant syncedAt = Instant.parse("2026-12-01T20:00:00.123456789Z");
    WatchMessage message = new WatchMessage(table.version(), true, Optional.of(syncedAt)).reset();
    message.upsert(encodings.encoded(cart));
    message.upsert(encodings.encoded(ledger));
    message.remove(new ServiceKey("shop", "gone"));
    WatchEvent expected =
        WatchEvent.newBuilder()
            .setVersion(table.version())
            .setReset(true)
            .addUpserted(ProtoMapping.service(cart))
            .addUpserted(ProtoMapping.service(ledger))
            .addRemoved(ServiceRef.newBuilder().setNamespace("shop").setName("gone"))
            .setStale(true)
            .setSyncedAt(ProtoMapping.timestamp(syncedAt))
            .build();
    assertThat(message.toBytes()).isEqualTo(expected.toByteArray());
    assertThat(message.services()).isEqualTo(3);
    assertThat(new WatchMessage(0, false, Optional.empty()).toBytes().length).isZero();
  }
}
