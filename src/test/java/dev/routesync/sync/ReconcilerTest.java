package dev.routesync.sync;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.observe.Metrics;
import dev.routesync.table.Endpoint;
import dev.routesync.table.EndpointHints;
import dev.routesync.table.NodeLocality;
import dev.routesync.table.Port;
import dev.routesync.table.RoutingTable;
import dev.routesync.table.ServiceEndpoints;
import dev.routesync.table.ServiceKey;
import dev.routesync.table.ServiceState;
import dev.routesync.table.ServiceTraffic;
import dev.routesync.table.TableWriter;
import dev.routesync.table.TopologyDecision;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ReconcilerTest {

  private static final ServiceKey A = new ServiceKey("shop", "a");
  private static final ServiceKey B = new ServiceKey("shop", "b");
  private static final ServiceKey C = new ServiceKey("shop", "c");

  /** The "informer caches": a service is known while it has an entry. */
  private static class MapLookup implements EndpointLookup {
    final Map<ServiceKey, List<Endpoint>> services = new HashMap<>();
    final Map<ServiceKey, List<Port>> ports = new HashMap<>();

    @Override
    public Optional<ServiceState> stateOf(ServiceKey key) {
      return Optional.ofNullable(services.get(key))
          .map(endpoints -> new ServiceState(endpoints, ports.getOrDefault(key, List.of())));
    }

    /** The trigger time found with the state; none unless a test says. */
    Optional<Instant> triggerTimeOf(ServiceKey key) {
      return Optional.empty();
    }

    @Override
    public Optional<Found> find(ServiceKey key) {
      return stateOf(key).map(state -> new Found(state, triggerTimeOf(key).orElse(null)));
    }
  }

  private final MapLookup lookup = new MapLookup();
  private final TableWriter writer =
      new TableWriter(Clock.fixed(Instant.parse("2024-01-01T00:00:00Z"), ZoneOffset.UTC), 16);
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final Reconciler reconciler =
      new Reconciler(lookup, writer, new Metrics(registry).sync());
  private final List<RoutingTable> published = new ArrayList<>();

  ReconcilerTest() {
    writer.onPublish(published::add);
  }

  private static Endpoint endpoint(String ip) {
    return new Endpoint(
        ip,
        List.of(new Port("http", 8080, "TCP")),
        "zone-a",
        "node-1",
        "pod-" + ip,
        true,
        true,
        false);
  }

  private static Batch batch(ServiceKey... keys) {
    return new Batch(Set.of(keys), 0, Batch.Cause.QUIET);
  }

  private void seed(Map<ServiceKey, List<Endpoint>> services) {
    lookup.services.putAll(services);
    reconciler.flush(new Batch(services.keySet(), 0, Batch.Cause.RELIST));
    published.clear();
  }

  @Test
  void theTableKeepsTheKeyInstanceTheLookupHolds() {
    // The informer's store holds one key per Service; the batch may carry an equal copy (made by
    // the Services watch's sink). The table must keep the store's, not a second copy of each key.
    ServiceKey held = new ServiceKey(new String("shop"), new String("a"));
    ServiceKey copy = new ServiceKey(new String("shop"), new String("a"));
    EndpointLookup holding =
        new EndpointLookup() {
          @Override
          public Optional<ServiceState> stateOf(ServiceKey key) {
            return Optional.of(ServiceState.of(List.of(endpoint("10.0.0.1"))));
          }

          @Override
          public Optional<Found> find(ServiceKey key) {
            return stateOf(key).map(state -> new Found(state, null, held));
          }
        };
    Reconciler reconciling = new Reconciler(holding, writer, new Metrics(registry).sync());

    reconciling.flush(new Batch(Set.of(copy), 0, Batch.Cause.RELIST));

    assertThat(writer.current().get(copy).orElseThrow().key()).isSameAs(held);
    assertThat(writer.current().services())
        .singleElement()
        .extracting(ServiceEndpoints::key)
        .isSameAs(held);
  }

  @Test
  void batchPublishesOneVersionWithItsUpsertsAndRemovals() {
    seed(Map.of(A, List.of(endpoint("10.0.0.1")), B, List.of(endpoint("10.0.0.2"))));
    long before = writer.current().version();
    lookup.services.put(A, List.of(endpoint("10.0.0.1"), endpoint("10.0.0.3")));
    lookup.services.remove(B); // all its objects are gone
    lookup.services.put(C, List.of(endpoint("10.0.0.4")));

    reconciler.flush(batch(A, B, C));

    assertThat(published).hasSize(1);
    RoutingTable table = writer.current();
    assertThat(table).isSameAs(published.get(0));
    assertThat(table.version()).isEqualTo(before + 1);
    assertThat(table.get(A).map(ServiceEndpoints::endpoints))
        .contains(List.of(endpoint("10.0.0.1"), endpoint("10.0.0.3")));
    assertThat(table.get(B)).isEmpty();
    assertThat(table.get(C).map(ServiceEndpoints::endpoints))
        .contains(List.of(endpoint("10.0.0.4")));
    assertThat(table.changedSince(before)).contains(Set.of(A, B, C));
  }

  @Test
  void recomputingUnchangedServicesPublishesNoVersion() {
    seed(Map.of(A, List.of(endpoint("10.0.0.1")), B, List.of()));
    RoutingTable before = writer.current();

    reconciler.flush(batch(A, B));
    reconciler.flush(batch(A, B, C)); // C is unknown and absent from the table: nothing to remove

    assertThat(published).isEmpty();
    assertThat(writer.current()).isSameAs(before);
  }

  @Test
  void serviceKnownWithNoEndpointsIsKeptAsAnEmptyEntryNotRemoved() {
    seed(Map.of(A, List.of(endpoint("10.0.0.1"))));
    lookup.services.put(A, List.of());

    reconciler.flush(batch(A));

    RoutingTable table = writer.current();
    assertThat(published).hasSize(1);
    assertThat(table.get(A)).hasValueSatisfying(s -> assertThat(s.endpoints()).isEmpty());
    assertThat(table.serviceCount()).isEqualTo(1);
    assertThat(table.endpointCount()).isZero();
  }

  @Test
  void everyBatchIsCountedByCauseEvenWhenItPublishesNothing() {
    lookup.services.put(A, List.of(endpoint("10.0.0.1")));

    reconciler.flush(batch(A));
    reconciler.flush(batch(A));
    reconciler.flush(new Batch(Set.of(A), 0, Batch.Cause.MAX_DELAY));

    assertThat(registry.get("routesync.batches").tag("cause", "quiet").counter().count())
        .isEqualTo(2.0);
    assertThat(registry.get("routesync.batches").tag("cause", "max_delay").counter().count())
        .isEqualTo(1.0);
    assertThat(registry.get("routesync.batch.size").summary().count()).isEqualTo(3);
    assertThat(registry.get("routesync.flush.duration").timer().count()).isEqualTo(3);
  }

  @Test
  void aTopologyFallbackIsCountedWhenAServiceEntersItNotAtEveryFlush() {
    // Every endpoint hinted for zone-b; this node is in zone-a: kube-proxy's fallback.
    NodeLocality here = new NodeLocality("node-1", "zone-a", null);
    EndpointHints zoneB = EndpointHints.of(List.of("zone-b"), List.of());
    Map<ServiceKey, List<Endpoint>> services = new HashMap<>();
    EndpointLookup decided =
        new EndpointLookup() {
          @Override
          public Optional<ServiceState> stateOf(ServiceKey key) {
            return Optional.ofNullable(services.get(key))
                .map(
                    endpoints ->
                        ServiceState.decided(
                            endpoints, List.of(), ServiceTraffic.of("PreferClose", false), here));
          }

          @Override
          public Optional<Found> find(ServiceKey key) {
            return stateOf(key).map(state -> new Found(state, null));
          }
        };
    Reconciler reconciling = new Reconciler(decided, writer, new Metrics(registry).sync());
    services.put(A, List.of(hinted("10.0.0.1", zoneB)));

    reconciling.flush(batch(A));
    services.put(A, List.of(hinted("10.0.0.1", zoneB), hinted("10.0.0.2", zoneB)));
    reconciling.flush(batch(A));
    reconciling.flush(batch(A));

    assertThat(writer.current().get(A).orElseThrow().topology().fallback())
        .isEqualTo(TopologyDecision.Fallback.NO_HINT_FOR_ZONE);
    assertThat(
            registry
                .get("routesync.topology.fallbacks")
                .tag("reason", "no_hint_for_zone")
                .counter()
                .count())
        .isEqualTo(1.0);

    // Hints for this zone: followed; then gone again: a second entry into the fallback.
    services.put(A, List.of(hinted("10.0.0.1", EndpointHints.of(List.of("zone-a"), List.of()))));
    reconciling.flush(batch(A));
    assertThat(writer.current().get(A).orElseThrow().topology().mode())
        .isEqualTo(TopologyDecision.Mode.SAME_ZONE);
    services.put(A, List.of(hinted("10.0.0.1", zoneB)));
    reconciling.flush(batch(A));
    assertThat(
            registry
                .get("routesync.topology.fallbacks")
                .tag("reason", "no_hint_for_zone")
                .counter()
                .count())
        .isEqualTo(2.0);
  }

  private static Endpoint hinted(String ip, EndpointHints hints) {
    return new Endpoint(
        ip,
        List.of(new Port("http", 8080, "TCP")),
        "zone-b",
        hints,
        "node-2",
        null,
        true,
        true,
        false);
  }

  /** A wall clock the test moves by hand. */
  private static final class MutableClock extends Clock {
    private Instant now;

    MutableClock(Instant now) {
      this.now = now;
    }

    void set(Instant instant) {
      now = instant;
    }

    @Override
    public Instant instant() {
      return now;
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      throw new UnsupportedOperationException();
    }
  }

  @Test
  void networkProgrammingSkipsTriggerTimesFromBeforeTheAgentStarted() {
    Instant started = Instant.parse("2024-01-01T00:00:00Z");
    Instant now = started.plus(Duration.ofHours(1));
    // A: listed at start, last changed two days before (as every object of a cluster's initial
    // list is). B: changed 2 s ago, while the agent was running. C: changed at the very instant
    // the agent started, which says nothing about how fast the agent programs a change.
    Map<ServiceKey, Instant> triggers =
        Map.of(A, started.minus(Duration.ofDays(2)), B, now.minusSeconds(2), C, started);
    MapLookup triggered =
        new MapLookup() {
          @Override
          Optional<Instant> triggerTimeOf(ServiceKey key) {
            return Optional.ofNullable(triggers.get(key));
          }
        };
    MutableClock clock = new MutableClock(started);
    // Built when the agent starts, as Agent does.
    Reconciler timed =
        new Reconciler(triggered, writer, new Metrics(registry).sync(), () -> 0L, clock);
    clock.set(now);
    triggered.services.put(A, List.of(endpoint("10.0.0.1")));
    triggered.services.put(B, List.of(endpoint("10.0.0.2")));
    triggered.services.put(C, List.of(endpoint("10.0.0.3")));

    timed.flush(batch(A, B, C));

    var programming = registry.get("routesync.network.programming.duration").timer();
    assertThat(programming.count()).isEqualTo(1);
    assertThat(programming.max(java.util.concurrent.TimeUnit.MILLISECONDS)).isEqualTo(2000.0);
  }

  @Test
  void recordsPublishLatencyAndNetworkProgrammingOnlyForServicesThatChanged() {
    Instant now = Instant.parse("2024-01-01T00:00:10Z");
    MapLookup triggered =
        new MapLookup() {
          @Override
          Optional<Instant> triggerTimeOf(ServiceKey key) {
            return Optional.of(now.minusMillis(1500));
          }
        };
    long[] nanoNow = {5_000_000_000L};
    // Started before the changes it programs.
    MutableClock clock = new MutableClock(now.minusSeconds(60));
    Reconciler timed =
        new Reconciler(triggered, writer, new Metrics(registry).sync(), () -> nanoNow[0], clock);
    clock.set(now);
    triggered.services.put(A, List.of(endpoint("10.0.0.1")));
    triggered.services.put(B, List.of(endpoint("10.0.0.2")));
    // A arrived 30 ms before the flush; B 10 ms.
    timed.flush(
        new Batch(
            Set.of(A, B),
            30_000_000L,
            Batch.Cause.QUIET,
            Map.of(A, nanoNow[0] - 30_000_000L, B, nanoNow[0] - 10_000_000L)));
    var latency = registry.get("routesync.publish.latency").timer();
    assertThat(latency.count()).isEqualTo(2);
    assertThat(latency.max(java.util.concurrent.TimeUnit.MILLISECONDS)).isEqualTo(30.0);
    var programming = registry.get("routesync.network.programming.duration").timer();
    assertThat(programming.count()).isEqualTo(2);
    assertThat(programming.max(java.util.concurrent.TimeUnit.MILLISECONDS)).isEqualTo(1500.0);

    // Recomputing unchanged services publishes nothing and records nothing.
    timed.flush(
        new Batch(Set.of(A, B), 0, Batch.Cause.QUIET, Map.of(A, nanoNow[0], B, nanoNow[0])));
    assertThat(latency.count()).isEqualTo(2);
    assertThat(programming.count()).isEqualTo(2);
  }

  @Test
  void aServicePortChangeAloneIsPublishedButMeasuresNoNetworkProgramming() {
    Instant now = Instant.parse("2024-01-01T00:00:10Z");
    MapLookup triggered =
        new MapLookup() {
          @Override
          Optional<Instant> triggerTimeOf(ServiceKey key) {
            return Optional.of(now.minusSeconds(5)); // the slices' change, already measured
          }
        };
    MutableClock clock = new MutableClock(now.minusSeconds(60));
    Reconciler timed =
        new Reconciler(triggered, writer, new Metrics(registry).sync(), () -> 0L, clock);
    clock.set(now);
    triggered.services.put(A, List.of(endpoint("10.0.0.1")));
    triggered.ports.put(A, List.of(new Port("http", 80, "TCP")));
    timed.flush(batch(A));
    var programming = registry.get("routesync.network.programming.duration").timer();
    assertThat(programming.count()).isEqualTo(1);
    long before = writer.current().version();

    triggered.ports.put(A, List.of(new Port("web", 80, "TCP"))); // the Service's port renamed
    timed.flush(batch(A));

    assertThat(writer.current().version()).isEqualTo(before + 1);
    assertThat(writer.current().get(A).orElseThrow().servicePorts())
        .containsExactly(new Port("web", 80, "TCP"));
    assertThat(programming.count()).isEqualTo(1);
  }
}
