package dev.routesync.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.routesync.table.ServiceKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

class CoalescerTest {

  private static final Duration DEBOUNCE = Duration.ofMillis(50);
  private static final Duration MAX_DELAY = Duration.ofMillis(500);

  private static final ServiceKey A = new ServiceKey("shop", "a");
  private static final ServiceKey B = new ServiceKey("shop", "b");
  private static final ServiceKey C = new ServiceKey("shop", "c");
  private static final ServiceKey D = new ServiceKey("shop", "d");
  private static final ServiceKey E = new ServiceKey("shop", "e");

  private final FakeScheduler scheduler = new FakeScheduler();
  private final RecordingSink sink = new RecordingSink(scheduler);

  /** A flushed batch and the fake time it was flushed at. */
  private record Flush(Batch batch, long atNanos) {}

  /** Records every batch; an optional hook runs inside the flush, after recording. */
  private static final class RecordingSink implements Coalescer.BatchSink {
    private final FakeScheduler scheduler;
    final List<Flush> flushes = new ArrayList<>();
    Consumer<Batch> during = batch -> {};
    int depth;
    int maxDepth;

    RecordingSink(FakeScheduler scheduler) {
      this.scheduler = scheduler;
    }

    @Override
    public void flush(Batch batch) {
      depth++;
      maxDepth = Math.max(maxDepth, depth);
      try {
        flushes.add(new Flush(batch, scheduler.nanoTime()));
        during.accept(batch);
      } finally {
        depth--;
      }
    }

    Flush last() {
      return flushes.get(flushes.size() - 1);
    }
  }

  private Coalescer coalescer(int maxBatch) {
    return new Coalescer(scheduler, new CoalescerSettings(DEBOUNCE, MAX_DELAY, maxBatch), sink);
  }

  private Coalescer coalescer() {
    return coalescer(5000);
  }

  private static long ms(long millis) {
    return Duration.ofMillis(millis).toNanos();
  }

  private void advanceMs(long millis) {
    scheduler.advance(Duration.ofMillis(millis));
  }

  @Test
  void aHeldCoalescerFlushesNothingUntilReleasedThenEverythingAsOneBatch() {
    Coalescer coalescer = coalescer();
    coalescer.hold();

    // The two table watches' first generations, and events between them.
    coalescer.flushAsOne(Set.of(A, B));
    coalescer.markDirty(C);
    advanceMs(1_000);
    coalescer.flushAsOne(Set.of(B, D));

    assertThat(sink.flushes).as("held: nothing flushed").isEmpty();
    assertThat(scheduler.pendingTasks()).as("held: no timer").isEmpty();
    // Held keys are not a wedged sync loop: liveness reads this.
    assertThat(coalescer.oldestPendingAgeNanos()).isZero();

    coalescer.release(Set.of(E));

    assertThat(sink.flushes).hasSize(1);
    assertThat(sink.last().batch().keys()).containsExactlyInAnyOrder(A, B, C, D, E);
    assertThat(sink.last().batch().cause()).isEqualTo(Batch.Cause.RELIST);
    // Released: back to the ordinary policy (a change after a quiet spell goes at once).
    advanceMs(100);
    coalescer.markDirty(A);
    assertThat(sink.flushes).hasSize(2);
    coalescer.release(Set.of(B));
    assertThat(sink.flushes).as("a second release is a no-op").hasSize(2);
  }

  @Test
  void firstChangeAfterAQuietSpellIsFlushedAtOnceAsLeadingEdge() {
    Coalescer coalescer = coalescer();

    coalescer.markDirty(A);

    assertThat(sink.flushes).hasSize(1);
    Flush flush = sink.last();
    assertThat(flush.batch().keys()).containsExactly(A);
    assertThat(flush.batch().cause()).isEqualTo(Batch.Cause.LEADING_EDGE);
    assertThat(flush.batch().waitNanos()).isZero();
    assertThat(flush.atNanos()).isZero();
    assertThat(coalescer.pendingCount()).isZero();
    assertThat(scheduler.pendingTasks()).as("a leading-edge flush leaves no timer").isEmpty();
  }

  @Test
  void secondChangeWithinTheDebounceWaitsForTheQuietPeriod() {
    Coalescer coalescer = coalescer();
    coalescer.markDirty(A);
    advanceMs(10);

    coalescer.markDirty(B);

    assertThat(sink.flushes).hasSize(1);
    assertThat(coalescer.pendingCount()).isEqualTo(1);
    advanceMs(49);
    assertThat(sink.flushes).as("49 ms after the change: still waiting").hasSize(1);
    advanceMs(1);
    assertThat(sink.flushes).hasSize(2);
    assertThat(sink.last().batch().keys()).containsExactly(B);
    assertThat(sink.last().batch().cause()).isEqualTo(Batch.Cause.QUIET);
    assertThat(sink.last().atNanos()).isEqualTo(ms(60));
  }

  @Test
  void changeAfterTheQuietPeriodHasPassedIsLeadingEdgeAgain() {
    Coalescer coalescer = coalescer();
    coalescer.markDirty(A);
    advanceMs(10);
    coalescer.markDirty(B);
    advanceMs(100);
    assertThat(sink.flushes).hasSize(2);

    coalescer.markDirty(C);

    assertThat(sink.flushes).hasSize(3);
    assertThat(sink.last().batch().keys()).containsExactly(C);
    assertThat(sink.last().batch().cause()).isEqualTo(Batch.Cause.LEADING_EDGE);
    assertThat(sink.last().atNanos()).isEqualTo(ms(110));
  }

  @Test
  void burstIsFlushedOnceTheDebounceHasPassedSinceItsLastChangeWithEachKeyOnce() {
    Coalescer coalescer = coalescer();
    coalescer.markDirty(E); // leading edge at 0
    List<ServiceKey> burst = List.of(A, B, A, C, B, A, A, C, B, A);
    for (ServiceKey key : burst) { // at 10, 20, ..., 100 ms
      advanceMs(10);
      coalescer.markDirty(key);
    }
    assertThat(sink.flushes).hasSize(1);

    advanceMs(49); // 149 ms: 49 ms after the last change
    assertThat(sink.flushes).as("no flush before the quiet period has passed").hasSize(1);
    advanceMs(1); // 150 ms

    assertThat(sink.flushes).hasSize(2);
    Batch batch = sink.last().batch();
    assertThat(batch.cause()).isEqualTo(Batch.Cause.QUIET);
    assertThat(batch.keys()).containsExactlyInAnyOrder(A, B, C);
    assertThat(sink.last().atNanos()).isEqualTo(ms(150));
    advanceMs(1000);
    assertThat(sink.flushes).as("nothing left to flush").hasSize(2);
  }

  @Test
  void changesThatNeverPauseAreFlushedAtMaxDelayAfterTheFirstPendingChange() {
    Coalescer coalescer = coalescer();
    coalescer.markDirty(E); // leading edge at 0
    List<ServiceKey> keys = List.of(A, B, C, D);
    for (int i = 1; i <= 200; i++) { // a change every 10 ms for 2 s
      advanceMs(10);
      coalescer.markDirty(keys.get(i % keys.size()));
    }

    List<Flush> afterLeading = sink.flushes.subList(1, sink.flushes.size());
    assertThat(afterLeading).isNotEmpty();
    Flush first = afterLeading.get(0);
    assertThat(first.batch().cause()).isEqualTo(Batch.Cause.MAX_DELAY);
    // The first pending change was at 10 ms (the one at 0 went out on the leading edge).
    assertThat(first.atNanos()).isEqualTo(ms(510));
    assertThat(first.batch().waitNanos()).isEqualTo(ms(500));
    assertThat(first.batch().keys()).containsExactlyInAnyOrder(A, B, C, D);
    assertThat(afterLeading)
        .allSatisfy(
            flush -> {
              assertThat(flush.batch().cause()).isEqualTo(Batch.Cause.MAX_DELAY);
              assertThat(flush.batch().waitNanos()).isEqualTo(ms(500));
            });
    for (int i = 1; i < afterLeading.size(); i++) {
      assertThat(afterLeading.get(i).atNanos() - afterLeading.get(i - 1).atNanos())
          .as("max-delay flushes keep coming while changes never pause")
          .isEqualTo(ms(500));
    }
    assertThat(afterLeading).hasSize(3); // at 510, 1010 and 1510 ms
  }

  @Test
  void batchIsFlushedAsSoonAsMaxBatchDistinctKeysAreDirty() {
    Coalescer coalescer = coalescer(3);
    coalescer.markDirty(E); // leading edge
    advanceMs(1);

    coalescer.markDirty(A);
    coalescer.markDirty(B);
    coalescer.markDirty(A);
    coalescer.markDirty(B);
    assertThat(sink.flushes).as("two distinct keys, however often marked").hasSize(1);
    coalescer.markDirty(C);

    assertThat(sink.flushes).hasSize(2);
    assertThat(sink.last().batch().cause()).isEqualTo(Batch.Cause.MAX_BATCH);
    assertThat(sink.last().batch().keys()).containsExactlyInAnyOrder(A, B, C);
    assertThat(sink.last().atNanos()).isEqualTo(ms(1));
    assertThat(coalescer.pendingCount()).isZero();
    assertThat(scheduler.pendingTasks()).as("the flush cancels its timers").isEmpty();
  }

  @Test
  void flushAsOnePublishesEverythingPendingAndTheGivenKeysAsOneRelistBatchWhateverItsSize() {
    Coalescer coalescer = coalescer(2);
    coalescer.markDirty(E); // leading edge
    advanceMs(1);
    coalescer.markDirty(A); // pending
    assertThat(sink.flushes).hasSize(1);

    coalescer.flushAsOne(List.of(B, C, D));

    assertThat(sink.flushes).hasSize(2);
    assertThat(sink.last().batch().cause()).isEqualTo(Batch.Cause.RELIST);
    assertThat(sink.last().batch().keys()).containsExactlyInAnyOrder(A, B, C, D);
    assertThat(coalescer.pendingCount()).isZero();
    assertThat(scheduler.pendingTasks()).isEmpty();
    advanceMs(1000);
    assertThat(sink.flushes).hasSize(2);
  }

  @Test
  void relistWithNothingPendingAndNothingChangedReportsNoWait() {
    // A relist of an empty selection: the watch supervisor calls flushAsOne with no keys.
    Coalescer coalescer = coalescer();
    advanceMs(123);

    coalescer.flushAsOne(List.of());

    assertThat(sink.flushes).hasSize(1);
    assertThat(sink.last().batch().keys()).isEmpty();
    assertThat(sink.last().batch().cause()).isEqualTo(Batch.Cause.RELIST);
    assertThat(sink.last().batch().waitNanos()).isZero();
  }

  @Test
  void relistWaitIsCountedFromTheOldestPendingChange() {
    Coalescer coalescer = coalescer();
    coalescer.markDirty(E); // leading edge at 0
    advanceMs(10);
    coalescer.markDirty(A); // pending since 10 ms
    advanceMs(20);

    coalescer.flushAsOne(List.of(B));

    assertThat(sink.last().batch().cause()).isEqualTo(Batch.Cause.RELIST);
    assertThat(sink.last().batch().waitNanos()).isEqualTo(ms(20));
    coalescer.flushAsOne(List.of(C));
    assertThat(sink.last().batch().waitNanos()).as("nothing was pending: C waited 0").isZero();
  }

  @Test
  void keysMarkedDuringAFlushGoIntoExactlyOneLaterBatchWithoutRecursion() {
    Coalescer coalescer = coalescer();
    sink.during =
        batch -> {
          if (sink.flushes.size() == 1) {
            coalescer.markDirty(B);
            coalescer.markDirty(C);
            coalescer.markDirty(B);
          }
        };

    coalescer.markDirty(A);

    assertThat(sink.maxDepth).as("the sink was never re-entered").isEqualTo(1);
    assertThat(sink.flushes).hasSize(1);
    assertThat(sink.flushes.get(0).batch().keys()).containsExactly(A);
    assertThat(coalescer.pendingCount()).isEqualTo(2);

    advanceMs(1000);

    assertThat(sink.maxDepth).isEqualTo(1);
    assertThat(sink.flushes).hasSize(2);
    assertThat(sink.last().batch().keys()).containsExactlyInAnyOrder(B, C);
    assertThat(sink.last().batch().cause()).isEqualTo(Batch.Cause.QUIET);
  }

  @Test
  void keyMarkedDuringATimerFlushAfterAQuietSpellIsNotFlushedInsideIt() {
    Coalescer coalescer = coalescer();
    sink.during =
        batch -> {
          if (batch.cause() == Batch.Cause.QUIET && sink.flushes.size() == 2) {
            // 50 ms after the last change: outside a flush this would be a leading edge.
            coalescer.markDirty(C);
          }
        };
    coalescer.markDirty(A); // leading edge at 0
    advanceMs(10);
    coalescer.markDirty(B); // flushed QUIET at 60 ms

    advanceMs(50);

    assertThat(sink.maxDepth).as("the sink was never re-entered").isEqualTo(1);
    assertThat(sink.flushes).hasSize(2);
    assertThat(sink.last().batch().keys()).containsExactly(B);
    advanceMs(1000);
    assertThat(sink.flushes).hasSize(3);
    assertThat(sink.last().batch().keys()).containsExactly(C);
    assertThat(sink.last().atNanos()).isEqualTo(ms(110));
  }

  @Test
  void maxBatchKeysMarkedDuringAFlushMakeExactlyOneLaterBatch() {
    Coalescer coalescer = coalescer(2);
    sink.during =
        batch -> {
          if (sink.flushes.size() == 1) {
            coalescer.markDirty(B);
            coalescer.markDirty(C);
            coalescer.markDirty(D);
          }
        };

    coalescer.markDirty(A);
    advanceMs(1000);

    assertThat(sink.maxDepth).isEqualTo(1);
    assertThat(sink.flushes).hasSize(2);
    assertThat(sink.last().batch().keys()).containsExactlyInAnyOrder(B, C, D);
  }

  @Test
  void maxDelayCountsFromAChangeMarkedDuringASlowFlush() {
    Coalescer coalescer = coalescer();
    sink.during =
        batch -> {
          if (sink.flushes.size() == 1) {
            coalescer.markDirty(B); // at 0 ms
            scheduler.elapse(Duration.ofMillis(30)); // the flush takes 30 ms
          }
        };
    coalescer.markDirty(A); // leading edge at 0, returns at 30 ms
    for (int t = 40; t <= 700; t += 10) { // then changes that never pause
      advanceMs(10);
      coalescer.markDirty(C);
    }

    assertThat(sink.flushes).hasSizeGreaterThanOrEqualTo(2);
    Flush second = sink.flushes.get(1);
    assertThat(second.batch().cause()).isEqualTo(Batch.Cause.MAX_DELAY);
    assertThat(second.batch().keys()).containsExactlyInAnyOrder(B, C);
    assertThat(second.atNanos()).isEqualTo(ms(500));
    assertThat(second.batch().waitNanos()).isEqualTo(ms(500));
  }

  @Test
  void flushAsOneCalledDuringAFlushRunsRightAfterItNotInsideIt() {
    Coalescer coalescer = coalescer();
    sink.during =
        batch -> {
          if (sink.flushes.size() == 1) {
            coalescer.flushAsOne(List.of(B, C));
          }
        };

    coalescer.markDirty(A);

    assertThat(sink.maxDepth).isEqualTo(1);
    assertThat(sink.flushes).hasSize(2);
    assertThat(sink.last().batch().cause()).isEqualTo(Batch.Cause.RELIST);
    assertThat(sink.last().batch().keys()).containsExactlyInAnyOrder(B, C);
    assertThat(coalescer.pendingCount()).isZero();
  }

  @Test
  void throwingSinkDoesNotWedgeTheCoalescer() {
    Coalescer coalescer = coalescer();
    sink.during =
        batch -> {
          if (sink.flushes.size() == 1) {
            throw new IllegalStateException("boom");
          }
        };

    assertThatCode(() -> coalescer.markDirty(A)).doesNotThrowAnyException();
    assertThat(sink.flushes).hasSize(1);

    advanceMs(1000);
    coalescer.markDirty(B);
    assertThat(sink.flushes).hasSize(2);
    assertThat(sink.last().batch().keys()).containsExactly(B);
    assertThat(sink.last().batch().cause()).isEqualTo(Batch.Cause.LEADING_EDGE);

    advanceMs(10);
    coalescer.markDirty(C);
    advanceMs(1000);
    assertThat(sink.flushes).hasSize(3);
    assertThat(sink.last().batch().keys()).containsExactly(C);
    assertThat(sink.last().batch().cause()).isEqualTo(Batch.Cause.QUIET);
  }

  @Test
  void sinkThrowingOnATimerFlushDoesNotWedgeTheCoalescer() {
    Coalescer coalescer = coalescer();
    sink.during =
        batch -> {
          if (batch.cause() == Batch.Cause.QUIET && sink.flushes.size() == 2) {
            throw new IllegalStateException("boom");
          }
        };
    coalescer.markDirty(A);
    advanceMs(10);
    coalescer.markDirty(B);
    assertThatCode(() -> advanceMs(100)).doesNotThrowAnyException();
    assertThat(sink.flushes).hasSize(2);

    advanceMs(10);
    coalescer.markDirty(C);
    assertThat(sink.flushes).hasSize(3);
    assertThat(sink.last().batch().keys()).containsExactly(C);
  }

  @Test
  void batchWaitNanosIsHowLongTheOldestChangeWaited() {
    Coalescer coalescer = coalescer();
    coalescer.markDirty(E); // leading edge at 0: waited 0
    advanceMs(10);
    coalescer.markDirty(A); // oldest pending: 10 ms
    advanceMs(20);
    coalescer.markDirty(B); // 30 ms
    advanceMs(200);

    assertThat(sink.flushes).hasSize(2);
    assertThat(sink.flushes.get(0).batch().waitNanos()).isZero();
    assertThat(sink.last().atNanos()).isEqualTo(ms(80));
    assertThat(sink.last().batch().waitNanos()).isEqualTo(ms(70));
  }

  @Test
  void oldestPendingAgeIsZeroWhenIdleAndGrowsWhileChangesArePending() {
    Coalescer coalescer = coalescer();
    assertThat(coalescer.oldestPendingAgeNanos()).isZero();
    coalescer.markDirty(E); // leading edge: nothing left pending
    assertThat(coalescer.oldestPendingAgeNanos()).isZero();

    advanceMs(10);
    coalescer.markDirty(A);
    assertThat(coalescer.oldestPendingAgeNanos()).isZero();
    advanceMs(15);
    assertThat(coalescer.oldestPendingAgeNanos()).isEqualTo(ms(15));
    coalescer.markDirty(B);
    advanceMs(5);
    assertThat(coalescer.oldestPendingAgeNanos())
        .as("measured from the oldest pending change, not the newest")
        .isEqualTo(ms(20));

    advanceMs(100);
    assertThat(sink.flushes).hasSize(2);
    assertThat(coalescer.oldestPendingAgeNanos()).isZero();
  }

  @Test
  void thousandMarksOfOneKeyInABurstMakeOnlyAHandfulOfBatches() {
    Coalescer coalescer = coalescer();
    for (int i = 0; i < 1000; i++) {
      coalescer.markDirty(A);
      scheduler.advanceNanos(Duration.ofMillis(1).toNanos() / 10); // 100 µs apart: 100 ms burst
    }
    advanceMs(1000);

    assertThat(sink.flushes).hasSizeBetween(1, 3);
    assertThat(sink.last().batch().keys()).isEqualTo(Set.of(A));
    assertThat(sink.flushes).allSatisfy(f -> assertThat(f.batch().keys()).containsExactly(A));
    assertThat(scheduler.tasksRun()).as("a burst costs a handful of timers").isLessThan(10);
    assertThat(coalescer.pendingCount()).isZero();
  }
}
