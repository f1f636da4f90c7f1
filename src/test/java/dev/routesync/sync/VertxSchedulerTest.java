package dev.routesync.sync;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.junit5.Checkpoint;
import io.vertx.junit5.Timeout;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The {@link Scheduler} contract on real Vert.x timers: a task runs on the context that scheduled
 * it (the coalescer and the watch rely on that to need no lock), never before its delay, and never
 * once cancelled.
 */
@ExtendWith(VertxExtension.class)
@Timeout(value = 10, timeUnit = TimeUnit.SECONDS)
class VertxSchedulerTest {

  private static final long DELAY_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

  @Test
  void aTaskRunsOnTheSchedulingContextAfterItsDelay(Vertx vertx, VertxTestContext testContext) {
    Scheduler scheduler = new VertxScheduler(vertx);
    Context context = vertx.getOrCreateContext();
    context.runOnContext(
        ignored -> {
          long scheduledAt = scheduler.nanoTime();
          scheduler.schedule(
              DELAY_NANOS,
              () ->
                  testContext.verify(
                      () -> {
                        assertThat(Vertx.currentContext()).isSameAs(context);
                        assertThat(scheduler.nanoTime() - scheduledAt)
                            .isGreaterThanOrEqualTo(DELAY_NANOS);
                        testContext.completeNow();
                      }));
        });
  }

  @Test
  void tasksScheduledByTasksStayOnTheContext(Vertx vertx, VertxTestContext testContext) {
    Scheduler scheduler = new VertxScheduler(vertx);
    Context context = vertx.getOrCreateContext();
    Checkpoint ran = testContext.checkpoint(5);
    Runnable[] chain = new Runnable[1];
    int[] remaining = {5};
    chain[0] =
        () ->
            testContext.verify(
                () -> {
                  assertThat(Vertx.currentContext()).isSameAs(context);
                  ran.flag();
                  if (--remaining[0] > 0) {
                    scheduler.schedule(0, chain[0]);
                  }
                });
    context.runOnContext(ignored -> scheduler.schedule(0, chain[0]));
  }

  @Test
  void aZeroDelayStillRunsLaterNotInsideSchedule(Vertx vertx, VertxTestContext testContext) {
    Scheduler scheduler = new VertxScheduler(vertx);
    AtomicBoolean scheduling = new AtomicBoolean();
    vertx.runOnContext(
        ignored -> {
          scheduling.set(true);
          scheduler.schedule(
              0,
              () ->
                  testContext.verify(
                      () -> {
                        assertThat(scheduling).isFalse();
                        testContext.completeNow();
                      }));
          scheduling.set(false);
        });
  }

  @Test
  void aCancelledTaskNeverRuns(Vertx vertx, VertxTestContext testContext) {
    Scheduler scheduler = new VertxScheduler(vertx);
    vertx.runOnContext(
        ignored -> {
          Scheduler.Cancellable cancelled =
              scheduler.schedule(DELAY_NANOS, () -> testContext.failNow("a cancelled task ran"));
          cancelled.cancel();
          cancelled.cancel(); // harmless twice
          // Well past the cancelled task's due time on the same context: it would have run first.
          scheduler.schedule(DELAY_NANOS * 5, testContext::completeNow);
        });
  }
}
