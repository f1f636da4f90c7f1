package dev.routesync.table;

import static dev.routesync.testing.TableStates.states;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RoutingTableTest {

  private static final Instant T0 = Instant.parse("2024-01-01T00:00:00Z");
  private static final Instant T1 = T0.plusSeconds(1);

  private static final ServiceKey SHOP_A = new ServiceKey("shop", "a");
  private static final ServiceKey SHOP_B = new ServiceKey("shop", "b");
  private static final ServiceKey SHOP2_A = new ServiceKey("shop2", "a");
  private static final ServiceKey SHO_Z = new ServiceKey("sho", "z");
  private static final ServiceKey SHOP_DASH_A = new ServiceKey("shop-x", "a");

  static Endpoint endpoint(String ip) {
    return new Endpoint(
        ip, List.of(new Port("http", 8080, "TCP")), "zone-a", "node-1", null, true, true, false);
  }

  static List<Endpoint> endpoints(String... ips) {
    return Arrays.stream(ips).map(RoutingTableTest::endpoint).toList();
  }

  private static RoutingTable empty() {
    return RoutingTable.empty(T0, RoutingTable.DEFAULT_DELTA_LOG_CAPACITY);
  }

  private static RoutingTable upsert(RoutingTable table, ServiceKey key, List<Endpoint> eps) {
    return table.apply(states(Map.of(key, eps)), List.of(), T1);
  }

  private static RoutingTable remove(RoutingTable table, ServiceKey... keys) {
    return table.apply(Map.of(), List.of(keys), T1);
  }

  private static List<ServiceKey> keys(Collection<ServiceEndpoints> services) {
    return services.stream().map(ServiceEndpoints::key).toList();
  }

  @Test
  void emptyTableIsVersionZeroWithNothingInIt() {
    RoutingTable table = empty();

    assertThat(table.version()).isZero();
    assertThat(table.serviceCount()).isZero();
    assertThat(table.endpointCount()).isZero();
    assertThat(table.services()).isEmpty();
    assertThat(table.builtAt()).isEqualTo(T0);
    assertThat(table.changedSince(0)).contains(Set.of());
  }

  @Test
  void applyThatChangesSomethingMakesTheNextVersionBuiltAtTheGivenTime() {
    RoutingTable v0 = empty();

    RoutingTable v1 = upsert(v0, SHOP_A, endpoints("10.0.0.1"));

    assertThat(v1).isNotSameAs(v0);
    assertThat(v1.version()).isEqualTo(1);
    assertThat(v1.builtAt()).isEqualTo(T1);
    assertThat(v1.get(SHOP_A).map(ServiceEndpoints::endpoints)).contains(endpoints("10.0.0.1"));
    assertThat(upsert(v1, SHOP_B, endpoints()).version()).isEqualTo(2);
  }

  @Test
  void applyThatChangesNothingReturnsTheSameInstance() {
    RoutingTable v1 = upsert(empty(), SHOP_A, endpoints("10.0.0.1", "10.0.0.2"));

    assertThat(upsert(v1, SHOP_A, endpoints("10.0.0.1", "10.0.0.2"))).isSameAs(v1);
    assertThat(remove(v1, SHOP_B)).as("removing an absent service").isSameAs(v1);
    assertThat(v1.apply(Map.of(), List.of(), T1)).isSameAs(v1);
    assertThat(
            v1.apply(
                states(Map.of(SHOP_A, endpoints("10.0.0.1", "10.0.0.2"))),
                List.of(SHOP_B, SHO_Z),
                T1))
        .isSameAs(v1);
  }

  @Test
  void versionGrowsByOnePerChangingApplyAndNotForNoOps() {
    RoutingTable table = empty();
    table = upsert(table, SHOP_A, endpoints("10.0.0.1"));
    table = upsert(table, SHOP_A, endpoints("10.0.0.1")); // no-op
    table = remove(table, SHOP_B); // no-op
    table = upsert(table, SHOP_A, endpoints("10.0.0.2"));
    table = remove(table, SHOP_A);

    assertThat(table.version()).isEqualTo(3);
  }

  @Test
  void eachServiceKeepsTheVersionAtWhichItLastChanged() {
    RoutingTable v1 = upsert(empty(), SHOP_A, endpoints("10.0.0.1"));
    RoutingTable v2 = upsert(v1, SHOP_B, endpoints("10.0.0.2"));
    RoutingTable v3 =
        v2.apply(
            states(Map.of(SHOP_A, endpoints("10.0.0.1"), SHOP_B, endpoints("10.0.0.3"))),
            List.of(),
            T1);

    assertThat(v3.version()).isEqualTo(3);
    assertThat(v3.get(SHOP_A).map(ServiceEndpoints::version))
        .as("re-upserted with equal endpoints: unchanged")
        .contains(1L);
    assertThat(v3.get(SHOP_B).map(ServiceEndpoints::version)).contains(3L);
    assertThat(v3.changedSince(2)).contains(Set.of(SHOP_B));
  }

  @Test
  void endpointCountFollowsUpsertsReplacementsAndRemovals() {
    RoutingTable table = upsert(empty(), SHOP_A, endpoints("10.0.0.1", "10.0.0.2"));
    assertThat(table.endpointCount()).isEqualTo(2);

    table = upsert(table, SHOP_B, endpoints("10.0.1.1", "10.0.1.2", "10.0.1.3"));
    assertThat(table.endpointCount()).isEqualTo(5);

    table = upsert(table, SHOP_A, endpoints("10.0.0.9"));
    assertThat(table.endpointCount()).as("replacement of 2 by 1").isEqualTo(4);

    table = upsert(table, SHOP_B, endpoints());
    assertThat(table.endpointCount()).isEqualTo(1);
    assertThat(table.serviceCount()).isEqualTo(2);

    table = remove(table, SHOP_A, SHOP_B);
    assertThat(table.endpointCount()).isZero();
    assertThat(table.serviceCount()).isZero();
  }

  @Test
  void servicesInReturnsExactlyThatNamespaceInNameOrder() {
    RoutingTable table =
        empty()
            .apply(
                states(
                    Map.of(
                        SHOP_B,
                        endpoints("10.0.0.2"),
                        SHOP_A,
                        endpoints("10.0.0.1"),
                        SHOP2_A,
                        endpoints("10.0.0.3"),
                        SHO_Z,
                        endpoints("10.0.0.4"),
                        SHOP_DASH_A,
                        endpoints("10.0.0.5"),
                        new ServiceKey("shop", ""),
                        endpoints())),
                List.of(),
                T1);

    assertThat(keys(table.servicesIn("shop")))
        .containsExactly(new ServiceKey("shop", ""), SHOP_A, SHOP_B);
    assertThat(keys(table.servicesIn("shop2"))).containsExactly(SHOP2_A);
    assertThat(keys(table.servicesIn("sho"))).containsExactly(SHO_Z);
    assertThat(keys(table.servicesIn("shop-x"))).containsExactly(SHOP_DASH_A);
    assertThat(table.servicesIn("sh")).isEmpty();
    assertThat(table.servicesIn("shop3")).isEmpty();
    assertThat(table.servicesIn("")).isEmpty();
  }

  @Test
  void servicesIterateByNamespaceThenName() {
    RoutingTable table =
        empty()
            .apply(
                states(
                    Map.of(
                        SHOP2_A, endpoints(),
                        SHOP_B, endpoints(),
                        SHO_Z, endpoints(),
                        SHOP_A, endpoints())),
                List.of(),
                T1);

    assertThat(keys(table.services())).containsExactly(SHO_Z, SHOP_A, SHOP_B, SHOP2_A);
  }

  @Test
  void earlierVersionIsUnchangedByLaterApplies() {
    RoutingTable v1 =
        empty()
            .apply(
                states(Map.of(SHOP_A, endpoints("10.0.0.1"), SHOP_B, endpoints("10.0.0.2"))),
                List.of(),
                T1);
    List<ServiceEndpoints> v1Services = List.copyOf(v1.services());

    RoutingTable v2 = upsert(v1, SHOP_A, endpoints("10.0.0.9"));
    RoutingTable v3 = remove(v2, SHOP_B);
    RoutingTable v4 = upsert(v3, SHOP2_A, endpoints("10.0.0.3"));

    assertThat(v4.version()).isEqualTo(4);
    assertThat(v1.version()).isEqualTo(1);
    assertThat(v1.builtAt()).isEqualTo(T1);
    assertThat(v1.services()).containsExactlyElementsOf(v1Services);
    assertThat(v1.serviceCount()).isEqualTo(2);
    assertThat(v1.endpointCount()).isEqualTo(2);
    assertThat(v1.get(SHOP_A).map(ServiceEndpoints::endpoints)).contains(endpoints("10.0.0.1"));
    assertThat(v1.get(SHOP2_A)).isEmpty();
    assertThat(v1.changedSince(1)).contains(Set.of());
    assertThat(v1.changedSince(2)).as("v2 is v1's future").isEmpty();
    assertThat(v2.get(SHOP_B)).isPresent();
  }

  @Test
  void upsertedServiceDoesNotAliasTheCallersList() {
    List<Endpoint> mutable = new java.util.ArrayList<>(endpoints("10.0.0.1"));
    RoutingTable v1 = upsert(empty(), SHOP_A, mutable);

    mutable.add(endpoint("10.0.0.2"));

    assertThat(v1.get(SHOP_A).map(ServiceEndpoints::endpoints)).contains(endpoints("10.0.0.1"));
    assertThat(v1.endpointCount()).isEqualTo(1);
  }

  @Test
  void changedSinceReturnsExactlyTheKeysChangedAfterThatVersion() {
    RoutingTable v1 = upsert(empty(), SHOP_A, endpoints("10.0.0.1"));
    RoutingTable v2 = upsert(v1, SHOP_B, endpoints("10.0.0.2"));
    RoutingTable v3 = remove(v2, SHOP_A);
    RoutingTable v4 = upsert(v3, SHOP2_A, endpoints());

    assertThat(v4.changedSince(0)).contains(Set.of(SHOP_A, SHOP_B, SHOP2_A));
    assertThat(v4.changedSince(1)).contains(Set.of(SHOP_A, SHOP_B, SHOP2_A));
    assertThat(v4.changedSince(2)).contains(Set.of(SHOP_A, SHOP2_A));
    assertThat(v4.changedSince(3)).contains(Set.of(SHOP2_A));
    assertThat(v4.changedSince(4)).contains(Set.of());
  }

  @Test
  void changedSinceIsEmptyOnceTheVersionHasFallenOutOfTheLogOrIsFromTheFuture() {
    RoutingTable table = RoutingTable.empty(T0, 4);
    for (int i = 1; i <= 6; i++) {
      table = upsert(table, SHOP_A, endpoints("10.0.0." + i));
    }
    // Versions 3..6 are logged: a watcher at 2 or later can be served a delta.
    assertThat(table.version()).isEqualTo(6);
    assertThat(table.deltaLog().oldestResumableVersion()).isEqualTo(2);
    assertThat(table.changedSince(2)).contains(Set.of(SHOP_A));
    assertThat(table.changedSince(1)).isEmpty();
    assertThat(table.changedSince(0)).isEmpty();
    assertThat(table.changedSince(-1)).isEmpty();
    assertThat(table.changedSince(7)).isEmpty();
    assertThat(table.changedSince(6)).contains(Set.of());
  }

  @Test
  void removingAndReAddingAKeyShowsUpInChangedSince() {
    RoutingTable v1 = upsert(empty(), SHOP_A, endpoints("10.0.0.1"));
    RoutingTable v2 = remove(v1, SHOP_A);
    RoutingTable v3 = upsert(v2, SHOP_A, endpoints("10.0.0.1"));

    assertThat(v3.version()).isEqualTo(3);
    assertThat(v3.get(SHOP_A).map(ServiceEndpoints::endpoints)).contains(endpoints("10.0.0.1"));
    assertThat(v3.get(SHOP_A).map(ServiceEndpoints::version)).contains(3L);
    assertThat(v3.changedSince(1)).contains(Set.of(SHOP_A));
  }

  @Test
  void upsertingAndRemovingTheSameKeyInOneApplyIsRejected() {
    RoutingTable v1 = upsert(empty(), SHOP_A, endpoints("10.0.0.1"));

    assertThatThrownBy(
            () ->
                v1.apply(
                    states(Map.of(SHOP_A, endpoints("10.0.0.1"), SHOP_B, endpoints())),
                    List.of(SHOP_A),
                    T1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("shop/a");
    assertThatThrownBy(() -> empty().apply(states(Map.of(SHOP_B, endpoints())), Set.of(SHOP_B), T1))
        .as("even when the key is absent")
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(v1.version()).isEqualTo(1);
    assertThat(v1.get(SHOP_B)).isEmpty();
  }

  @Test
  void getOfAnUnknownServiceIsEmpty() {
    assertThat(upsert(empty(), SHOP_A, endpoints()).get(SHOP_B)).isEqualTo(Optional.empty());
  }

  @Test
  void theSameEndpointsAndServicePortsPublishNothing() {
    List<Port> ports = List.of(new Port("http", 80, "TCP"));
    RoutingTable v1 =
        empty()
            .apply(Map.of(SHOP_A, new ServiceState(endpoints("10.0.0.1"), ports)), List.of(), T1);

    RoutingTable again =
        v1.apply(
            Map.of(
                SHOP_A,
                new ServiceState(endpoints("10.0.0.1"), List.of(new Port("http", 80, "TCP")))),
            List.of(),
            T1);

    assertThat(again).isSameAs(v1);
    assertThat(v1.get(SHOP_A).orElseThrow().servicePorts()).isEqualTo(ports);
  }

  @Test
  void aServicePortRenamedPublishesANewVersionOfThatServiceOnly() {
    RoutingTable v1 =
        empty()
            .apply(
                Map.of(
                    SHOP_A,
                    new ServiceState(endpoints("10.0.0.1"), List.of(new Port("http", 80, "TCP"))),
                    SHOP_B,
                    ServiceState.of(endpoints("10.0.0.2"))),
                List.of(),
                T1);

    RoutingTable v2 =
        v1.apply(
            Map.of(
                SHOP_A,
                new ServiceState(endpoints("10.0.0.1"), List.of(new Port("web", 80, "TCP"))),
                SHOP_B,
                ServiceState.of(endpoints("10.0.0.2"))),
            List.of(),
            T1);

    assertThat(v2.version()).isEqualTo(v1.version() + 1);
    assertThat(v2.changedSince(v1.version())).contains(Set.of(SHOP_A));
    assertThat(v2.get(SHOP_A).orElseThrow().servicePorts())
        .containsExactly(new Port("web", 80, "TCP"));
    assertThat(v2.get(SHOP_A).orElseThrow().version()).isEqualTo(v2.version());
    assertThat(v2.endpointCount()).isEqualTo(2);
  }

  @Test
  void aRestoredTableIteratesInKeyOrderAndContinuesFromItsVersion() {
    RoutingTable restored =
        RoutingTable.restored(
            7,
            List.of(
                new ServiceEndpoints(SHOP2_A, 3, endpoints("10.0.0.3")),
                new ServiceEndpoints(SHOP_B, 7, endpoints("10.0.0.2", "10.0.0.4")),
                new ServiceEndpoints(SHOP_A, 1, endpoints("10.0.0.1"))),
            T0,
            RoutingTable.DEFAULT_DELTA_LOG_CAPACITY);

    assertThat(keys(restored.services())).containsExactly(SHOP_A, SHOP_B, SHOP2_A);
    assertThat(keys(restored.servicesIn("shop"))).containsExactly(SHOP_A, SHOP_B);
    assertThat(restored.endpointCount()).isEqualTo(4);
    assertThat(restored.changedSince(7)).contains(Set.of());

    RoutingTable next = upsert(restored, SHOP_A, endpoints("10.0.0.9"));
    assertThat(next.version()).isEqualTo(8);
    assertThat(next.get(SHOP_A).orElseThrow().version()).isEqualTo(8);
    assertThat(next.changedSince(7)).contains(Set.of(SHOP_A));
    assertThat(upsert(next, SHOP_A, endpoints("10.0.0.9"))).isSameAs(next);
  }

  @Test
  void aRestoredTableRejectsAKeyTwice() {
    List<ServiceEndpoints> twice =
        List.of(
            new ServiceEndpoints(SHOP_A, 1, endpoints("10.0.0.1")),
            new ServiceEndpoints(new ServiceKey("shop", "a"), 1, endpoints("10.0.0.2")));

    assertThatThrownBy(
            () -> RoutingTable.restored(1, twice, T0, RoutingTable.DEFAULT_DELTA_LOG_CAPACITY))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("appears twice");
  }
}
