package dev.routesync.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.management.ThreadMXBean;
import dev.routesync.table.ServiceKey;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The coalescer's per-event bookkeeping stays small (issue 12, target 3: the async-profiler run at
 * 5,000 events/s showed its pending map growing from empty every batch and each batch copied twice
 * into immutable collections before the reconciler read it once).
 */
class CoalescerAllocationTest {

  private static final int KEYS = 4000;

  private final FakeScheduler scheduler = new FakeScheduler();
  private final List<Batch> batches = new ArrayList<>();
  private final Coalescer coalescer =
      new Coalescer(
          scheduler,
          new CoalescerSettings(Duration.ofMillis(50), Duration.ofMillis(500), 5000),
          batches::add);

  private static List<ServiceKey> keys() {
    List<ServiceKey> keys = new ArrayList<>();
    for (int i = 0; i < KEYS; i++) {
      keys.add(new ServiceKey("shop", "svc-" + i));
    }
    return keys;
  }

  /** One batch of {@code keys}, marked after a leading-edge flush, flushed by the quiet timer. */
  private void batchOf(List<ServiceKey> keys) {
    scheduler.advance(Duration.ofSeconds(1));
    coalescer.markDirty(new ServiceKey("shop", "leading-edge"));
    for (ServiceKey key : keys) {
      coalescer.markDirty(key);
      coalescer.markDirty(key); // a second change of a pending key allocates nothing
    }
    scheduler.advance(Duration.ofMillis(60));
  }

  @Test
  void aBatchCostsItsEntriesAndOneTableNotRegrowthAndCopies() {
    ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
    List<ServiceKey> keys = keys();
    for (int warm = 0; warm < 20; warm++) {
      batchOf(keys);
    }
    batches.clear();
    long before = threads.getCurrentThreadAllocatedBytes();
    batchOf(keys);
    long perKey = (threads.getCurrentThreadAllocatedBytes() - before) / KEYS;

    assertThat(batches).hasSize(2);
    assertThat(batches.get(1).keys()).hasSize(KEYS).containsAll(keys);
    // Measured here: 80 B per key (a map entry, its boxed arrival time, a share of one pre-sized
    // table and of the timers); growing the map from empty and copying each batch twice into
    // immutable collections made 152 B.
    assertThat(perKey).isLessThan(100);
  }

  @Test
  void aHandedOverBatchIsStillImmutableAndEqualByContent() {
    batchOf(keys());
    Batch batch = batches.get(batches.size() - 1);

    assertThatThrownBy(() -> batch.keys().clear())
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> batch.changedAt().clear())
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> batch.changedAt().entrySet().iterator().next().setValue(0L))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThat(batch.changedAt().keySet()).isEqualTo(batch.keys());
    assertThat(batch)
        .isEqualTo(
            new Batch(
                batch.keys(), batch.waitNanos(), batch.cause(), Map.copyOf(batch.changedAt())));
  }
}
