package dev.routesync.serve;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class WatchBytesTest {

  @Test
  void aMessageThatDoesNotFitWaitsUntilARelease() {
    WatchBytes budget = new WatchBytes(100);
    assertThat(budget.reserve(60)).isTrue();
    assertThat(budget.reserve(50)).isFalse();
    AtomicInteger woken = new AtomicInteger();
    budget.awaitRoom(woken::incrementAndGet, 50);
    assertThat(woken).hasValue(0);
    assertThat(budget.waiting()).isEqualTo(1);

    budget.release(60);
    assertThat(woken).hasValue(1);
    assertThat(budget.waiting()).isZero();
    assertThat(budget.reserve(50)).isTrue();
    assertThat(budget.pendingBytes()).isEqualTo(50);
  }

  @Test
  void aMessageLargerThanTheBudgetGoesAloneSoEveryStreamProgresses() {
    WatchBytes budget = new WatchBytes(100);
    assertThat(budget.reserve(500)).isTrue(); // nothing else pending
    assertThat(budget.reserve(1)).isFalse();
    budget.release(500);
    assertThat(budget.reserve(1)).isTrue();
    assertThat(budget.reserve(500)).isFalse();
  }

  @Test
  void roomThatCameBackBeforeTheWaiterRegisteredWakesItAtOnce() {
    WatchBytes budget = new WatchBytes(100);
    AtomicInteger woken = new AtomicInteger();
    budget.awaitRoom(woken::incrementAndGet, 10); // nothing pending: room now
    assertThat(woken).hasValue(1);
    assertThat(budget.waiting()).isZero();
  }
}
