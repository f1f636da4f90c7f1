package dev.routesync.table;

import static dev.routesync.testing.TableStates.states;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TableWriterTest {

  private static final ServiceKey A = new ServiceKey("shop", "a");
  private static final ServiceKey B = new ServiceKey("shop", "b");

  /** A clock the test moves by hand. */
  private static final class MutableClock extends Clock {
    private Instant now;

    MutableClock(Instant now) {
      this.now = now;
    }

    void advance(Duration by) {
      now = now.plus(by);
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Instant instant() {
      return now;
    }
  }

  private static final Instant T0 = Instant.parse("2024-01-01T00:00:00Z");

  private final MutableClock clock = new MutableClock(T0);
  private final TableWriter writer = new TableWriter(clock, 8);
  private final List<RoutingTable> published = new ArrayList<>();

  TableWriterTest() {
    writer.onPublish(published::add);
  }

  private static List<Endpoint> endpoints(String... ips) {
    return RoutingTableTest.endpoints(ips);
  }

  @Test
  void startsWithAnEmptyVersionZeroTableBuiltAtConstruction() {
    RoutingTable current = writer.current();

    assertThat(current.version()).isZero();
    assertThat(current.serviceCount()).isZero();
    assertThat(current.builtAt()).isEqualTo(T0);
    assertThat(published).isEmpty();
  }

  @Test
  void publishMakesTheNewVersionCurrentStampedWithTheClock() {
    clock.advance(Duration.ofSeconds(5));

    RoutingTable returned = writer.publish(states(Map.of(A, endpoints("10.0.0.1"))), List.of());

    assertThat(writer.current()).isSameAs(returned);
    assertThat(returned.version()).isEqualTo(1);
    assertThat(returned.builtAt()).isEqualTo(T0.plusSeconds(5));
    assertThat(returned.get(A)).isPresent();
  }

  @Test
  void listenersAreCalledOncePerNewVersionWithThatVersion() {
    List<RoutingTable> second = new ArrayList<>();
    writer.onPublish(second::add);

    RoutingTable v1 = writer.publish(states(Map.of(A, endpoints("10.0.0.1"))), List.of());
    RoutingTable v2 = writer.publish(states(Map.of(B, endpoints("10.0.0.2"))), List.of(A));

    assertThat(published).containsExactly(v1, v2);
    assertThat(second).containsExactly(v1, v2);
    assertThat(published).extracting(RoutingTable::version).containsExactly(1L, 2L);
  }

  @Test
  void listenerSeesTheNewVersionAlreadyCurrent() {
    List<Long> seenCurrent = new ArrayList<>();
    writer.onPublish(table -> seenCurrent.add(writer.current().version()));

    writer.publish(states(Map.of(A, endpoints("10.0.0.1"))), List.of());

    assertThat(seenCurrent).containsExactly(1L);
  }

  @Test
  void publishThatChangesNothingKeepsTheCurrentTableAndCallsNoListener() {
    RoutingTable v1 = writer.publish(states(Map.of(A, endpoints("10.0.0.1"))), List.of());
    published.clear();
    clock.advance(Duration.ofSeconds(1));

    RoutingTable same = writer.publish(states(Map.of(A, endpoints("10.0.0.1"))), List.of(B));
    RoutingTable alsoSame = writer.publish(Map.of(), List.of());

    assertThat(same).isSameAs(v1);
    assertThat(alsoSame).isSameAs(v1);
    assertThat(writer.current()).isSameAs(v1);
    assertThat(writer.current().builtAt()).isEqualTo(T0);
    assertThat(published).isEmpty();
  }

  @Test
  void rejectedPublishLeavesTheCurrentTableAndListenersUntouched() {
    RoutingTable v1 = writer.publish(states(Map.of(A, endpoints("10.0.0.1"))), List.of());
    published.clear();

    assertThatThrownBy(() -> writer.publish(states(Map.of(B, endpoints())), List.of(B)))
        .isInstanceOf(IllegalArgumentException.class);

    assertThat(writer.current()).isSameAs(v1);
    assertThat(published).isEmpty();
  }

  @Test
  void deltaLogCapacityGivenToTheWriterBoundsResumableVersions() {
    for (int i = 1; i <= 10; i++) {
      writer.publish(states(Map.of(A, endpoints("10.0.0." + i))), List.of());
    }

    RoutingTable current = writer.current();
    assertThat(current.version()).isEqualTo(10);
    assertThat(current.deltaLog().oldestResumableVersion()).isEqualTo(2);
    assertThat(current.changedSince(2)).isPresent();
    assertThat(current.changedSince(1)).isEmpty();
  }
}
