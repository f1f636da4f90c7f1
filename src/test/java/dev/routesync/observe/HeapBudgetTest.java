package dev.routesync.observe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.routesync.testing.FullCollections;
import java.time.Duration;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The JVM's own collection-usage threshold, on this test JVM's old generation: a budget it is
 * certainly over (a few bytes) notifies after a full collection; one it cannot reach never does.
 */
class HeapBudgetTest {

  @Test
  void aCollectionThatLeavesTheOldGenerationAboveTheBudgetNotifies() {
    HeapBudget budget = HeapBudget.of(1e-9).orElseThrow();
    CopyOnWriteArrayList<HeapBudget.Spent> spent = new CopyOnWriteArrayList<>();
    budget.arm(spent::add);
    try {
      FullCollections.until(() -> !spent.isEmpty(), Duration.ofSeconds(30));
      HeapBudget.Spent first = spent.get(0);
      assertThat(first.liveBytes()).isGreaterThanOrEqualTo(first.budgetBytes()).isPositive();
      assertThat(first.maxBytes()).isGreaterThan(first.budgetBytes());
      assertThat(first.describe()).contains("still live after a full collection", "budget");
      assertThat(budget.spent()).isTrue();
      assertThat(budget.liveBytes()).isPositive();
    } finally {
      budget.disarm();
    }
  }

  @Test
  void aBudgetOfTheWholeOldGenerationIsNotSpentByThisJvm() {
    HeapBudget budget = HeapBudget.of(1.0).orElseThrow();
    HeapBudget tiny = HeapBudget.of(1e-9).orElseThrow();
    CopyOnWriteArrayList<HeapBudget.Spent> whole = new CopyOnWriteArrayList<>();
    CopyOnWriteArrayList<HeapBudget.Spent> few = new CopyOnWriteArrayList<>();
    budget.arm(whole::add);
    // Armed last, its few bytes are the pool's threshold: the JVM notifies both listeners, and the
    // whole-generation budget must see through a notification that is not about it.
    tiny.arm(few::add);
    try {
      FullCollections.until(() -> !few.isEmpty(), Duration.ofSeconds(30));
      assertThat(whole).isEmpty();
      assertThat(budget.spent()).isFalse();
    } finally {
      budget.disarm();
      tiny.disarm();
    }
  }

  @Test
  void aShareOutsideZeroToOneIsRefused() {
    assertThatThrownBy(() -> HeapBudget.of(0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> HeapBudget.of(1.5)).isInstanceOf(IllegalArgumentException.class);
  }
}
