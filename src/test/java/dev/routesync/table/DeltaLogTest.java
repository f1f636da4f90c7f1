package dev.routesync.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Set;
import org.junit.jupiter.api.Test;

class DeltaLogTest {

  private static final ServiceKey A = new ServiceKey("shop", "a");
  private static final ServiceKey B = new ServiceKey("shop", "b");
  private static final ServiceKey C = new ServiceKey("shop", "c");
  private static final ServiceKey D = new ServiceKey("web", "d");

  private static TableDelta delta(long version, Set<ServiceKey> upserted, Set<ServiceKey> removed) {
    return new TableDelta(version, upserted, removed);
  }

  @Test
  void capacityBelowOneIsRejected() {
    assertThatThrownBy(() -> DeltaLog.empty(0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> DeltaLog.empty(-3)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void emptyLogHasNoResumableVersionAndServesOnlyTheCurrentVersion() {
    DeltaLog log = DeltaLog.empty(4);

    assertThat(log.oldestResumableVersion()).isEqualTo(-1);
    assertThat(log.size()).isZero();
    assertThat(log.changedSince(0, 0)).contains(Set.of());
    assertThat(log.changedSince(1, 0)).isEmpty();
  }

  @Test
  void changedSinceIsTheUnionOfUpsertsAndRemovalsOfLaterDeltas() {
    DeltaLog log =
        DeltaLog.empty(8)
            .append(delta(1, Set.of(A), Set.of()))
            .append(delta(2, Set.of(B), Set.of(A)))
            .append(delta(3, Set.of(C), Set.of()))
            .append(delta(4, Set.of(), Set.of(D)));

    assertThat(log.changedSince(0, 4)).contains(Set.of(A, B, C, D));
    assertThat(log.changedSince(1, 4)).contains(Set.of(A, B, C, D));
    assertThat(log.changedSince(2, 4)).contains(Set.of(C, D));
    assertThat(log.changedSince(3, 4)).contains(Set.of(D));
    assertThat(log.changedSince(4, 4)).contains(Set.of());
  }

  @Test
  void oldestDeltasAreEvictedBeyondCapacity() {
    DeltaLog log = DeltaLog.empty(4);
    for (long v = 1; v <= 6; v++) {
      log = log.append(delta(v, Set.of(v % 2 == 0 ? A : B), Set.of()));
    }

    assertThat(log.size()).isEqualTo(4);
    assertThat(log.oldestResumableVersion()).isEqualTo(2);
    assertThat(log.changedSince(2, 6)).contains(Set.of(A, B));
    assertThat(log.changedSince(5, 6)).contains(Set.of(A));
    assertThat(log.changedSince(1, 6)).as("delta 2 was evicted").isEmpty();
  }

  @Test
  void versionFromTheFutureIsNotServed() {
    DeltaLog log = DeltaLog.empty(4).append(delta(1, Set.of(A), Set.of()));

    assertThat(log.changedSince(2, 1)).isEmpty();
    assertThat(log.changedSince(99, 1)).isEmpty();
  }

  @Test
  void appendLeavesThePreviousLogUnchanged() {
    DeltaLog one = DeltaLog.empty(2).append(delta(1, Set.of(A), Set.of()));
    DeltaLog two = one.append(delta(2, Set.of(B), Set.of()));
    DeltaLog three = two.append(delta(3, Set.of(C), Set.of()));

    assertThat(one.size()).isEqualTo(1);
    assertThat(one.changedSince(0, 1)).contains(Set.of(A));
    assertThat(two.changedSince(0, 2)).contains(Set.of(A, B));
    assertThat(three.changedSince(0, 3)).isEmpty();
    assertThat(three.changedSince(1, 3)).contains(Set.of(B, C));
  }
}
