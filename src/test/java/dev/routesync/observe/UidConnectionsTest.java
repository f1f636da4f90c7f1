package dev.routesync.observe;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The bounded {@code routesync_connections{uid}} gauge, driven directly (3 labelled uids). */
class UidConnectionsTest {

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final UidConnections byUid = new UidConnections(registry, 3);

  @Test
  void theFirstUidsGetSeriesTheRestAreOtherAndUnreadableOnesUnknown() {
    open(1000, 1001, 1002, 1003, 1004);
    byUid.changed(-1, 1);
    assertThat(series())
        .isEqualTo(Map.of("1000", 1.0, "1001", 1.0, "1002", 1.0, "other", 2.0, "unknown", 1.0));
  }

  @Test
  void aUidWithMoreOpenConnectionsThanTheSmallestLabelledOneTakesItsSeries() {
    open(1000, 1000, 1001, 1001, 1002, 1003);
    assertThat(series()).containsOnlyKeys("1000", "1001", "1002", "other", "unknown");
    open(1003); // now 2 open, more than 1002's 1
    assertThat(series())
        .isEqualTo(Map.of("1000", 2.0, "1001", 2.0, "1003", 2.0, "other", 1.0, "unknown", 0.0));
  }

  @Test
  void aTieSwapsNothingAndAUidKeepsItsSeriesAtZeroUntilItsSlotIsNeeded() {
    open(1000, 1001, 1002, 1003);
    assertThat(series()).containsKeys("1000", "1001", "1002").doesNotContainKey("1003");
    byUid.changed(1000, -1);
    assertThat(series()).containsEntry("1000", 0.0);
    open(1004); // 1 open beats 1000's 0
    assertThat(series())
        .isEqualTo(Map.of("1001", 1.0, "1002", 1.0, "1004", 1.0, "other", 1.0, "unknown", 0.0));
  }

  @Test
  void manyDistinctUidsNeverGrowTheSeriesOrTheMemoryBeyondWhatIsOpen() {
    for (long uid = 0; uid < 10_000; uid++) {
      byUid.changed(uid, 1);
      assertThat(registry.find(UidConnections.NAME).gauges()).hasSizeLessThanOrEqualTo(3 + 2);
      if (uid % 2 == 0) {
        byUid.changed(uid, -1);
      }
    }
    assertThat(series().values().stream().mapToDouble(Double::doubleValue).sum()).isEqualTo(5000);
    for (long uid = 1; uid < 10_000; uid += 2) {
      byUid.changed(uid, -1);
    }
    assertThat(series().values().stream().mapToDouble(Double::doubleValue).sum()).isZero();
    assertThat(byUid.tracked()).isZero();
    assertThat(registry.find(UidConnections.NAME).gauges()).hasSizeLessThanOrEqualTo(3 + 2);
  }

  @Test
  void theAgentsRegistryBoundsTheLabelsAtTheDocumentedNumber() {
    SimpleMeterRegistry agents = new SimpleMeterRegistry();
    Metrics metrics = new Metrics(agents);
    for (long uid = 0; uid < 100; uid++) {
      metrics.serve().socketConnections(uid, 1);
    }
    assertThat(agents.find(UidConnections.NAME).gauges()).hasSize(UidConnections.LABELLED_UIDS + 2);
  }

  private void open(long... uids) {
    for (long uid : uids) {
      byUid.changed(uid, 1);
    }
  }

  private Map<String, Double> series() {
    Map<String, Double> values = new TreeMap<>();
    for (Gauge gauge : registry.find(UidConnections.NAME).gauges()) {
      values.put(gauge.getId().getTag("uid"), gauge.value());
    }
    return values;
  }
}
