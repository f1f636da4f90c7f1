package dev.routesync.drift;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashSet;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class PendingWorkTest {

  @Test
  void aSmallSetIsClearedInPlace() {
    Set<String> set = new LinkedHashSet<>(Set.of("a", "b"));

    Set<String> next = PendingWork.emptied(set);

    assertThat(next).isSameAs(set).isEmpty();
  }

  @Test
  void aSetThatHeldAWholeSyncIsReplacedSoLaterRoundsDoNotPayItsCapacity() {
    Set<Integer> set = new LinkedHashSet<>();
    IntStream.range(0, 10_000).forEach(set::add);

    Set<Integer> next = PendingWork.emptied(set);

    assertThat(next).isNotSameAs(set).isEmpty();
  }
}
