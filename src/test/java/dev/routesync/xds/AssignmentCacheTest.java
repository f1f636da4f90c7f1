package dev.routesync.xds;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Any;
import dev.routesync.table.Endpoint;
import dev.routesync.table.Port;
import dev.routesync.table.RoutingTable;
import dev.routesync.table.ServiceKey;
import dev.routesync.table.ServiceState;
import dev.routesync.table.TableWriter;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AssignmentCacheTest {

  private static final ServiceKey CART = new ServiceKey("shop", "cart");
  private final TableWriter writer = new TableWriter(Clock.systemUTC(), 16);
  private final AssignmentCache cache = new AssignmentCache();

  private RoutingTable publish(String ip) {
    RoutingTable table =
        writer.publish(
            Map.of(
                CART,
                new ServiceState(
                    List.of(
                        new Endpoint(
                            ip,
                            List.of(new Port("grpc", 9090, "TCP")),
                            "a",
                            "n",
                            "p",
                            true,
                            true,
                            false)),
                    List.of(new Port("grpc", 8080, "TCP")))),
            List.of());
    cache.published(table);
    return table;
  }

  private Any get(String name, RoutingTable table) {
    return cache.assignment(name, XdsNames.parse(name), table);
  }

  @Test
  void oneEncodingPerServiceVersionIsSharedByEveryCaller() {
    RoutingTable table = publish("10.0.0.1");
    Any first = get("cart.shop.svc.cluster.local:8080", table);
    assertThat(get("cart.shop.svc.cluster.local:8080", table)).isSameAs(first);
    RoutingTable next = publish("10.0.0.2");
    Any changed = get("cart.shop.svc.cluster.local:8080", next);
    assertThat(changed).isNotSameAs(first).isNotEqualTo(first);
  }

  @Test
  void namesThatSelectNothingAreNotKeptSoClientsCannotGrowTheCache() {
    RoutingTable table = publish("10.0.0.1");
    get("cart.shop.svc.cluster.local:8080", table);
    for (int port = 1; port <= 5_000; port++) {
      get("cart.shop.svc.cluster.local:" + port, table);
      get("cart.shop.svc.cluster.local:name" + port, table);
      get("nope" + port + ".shop.svc.cluster.local:8080", table);
    }
    assertThat(cache.size()).isEqualTo(1); // :8080 only
  }

  @Test
  void aServiceLeavingTheTableTakesItsEntriesWithIt() {
    RoutingTable table = publish("10.0.0.1");
    get("cart.shop.svc.cluster.local:8080", table);
    get("cart.shop.svc.cluster.local:grpc", table);
    assertThat(cache.size()).isEqualTo(2);
    cache.published(writer.publish(Map.of(), List.of(CART)));
    assertThat(cache.size()).isZero();
  }
}
