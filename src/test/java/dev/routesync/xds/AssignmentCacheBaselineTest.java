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
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The unshared baseline that XdsPushBenchmark compares the shared cache with: the same bytes, kept
 * nowhere.
 */
class AssignmentCacheBaselineTest {

  private static final String CLUSTER = "cart.shop.svc.cluster.local:80";

  private final RoutingTable table =
      new TableWriter(Clock.systemUTC(), 16)
          .publish(
              Map.of(
                  new ServiceKey("shop", "cart"),
                  new ServiceState(
                      List.of(
                          new Endpoint(
                              "10.0.0.1",
                              List.of(new Port("http", 8080, "TCP")),
                              "a",
                              "node-a",
                              "p-1",
                              true,
                              true,
                              false)),
                      List.of(new Port("http", 80, "TCP")))),
              List.of());

  @Test
  void unsharedEncodesTheSameBytesEveryTimeAndKeepsNothing() {
    AssignmentCache unshared = new AssignmentCache(false);
    Optional<XdsTarget> target = XdsNames.parse(CLUSTER);
    Any first = unshared.assignment(CLUSTER, target, table);
    assertThat(unshared.assignment(CLUSTER, target, table)).isNotSameAs(first).isEqualTo(first);
    assertThat(first).isEqualTo(new AssignmentCache().assignment(CLUSTER, target, table));
    assertThat(unshared.size()).isZero();
  }
}
