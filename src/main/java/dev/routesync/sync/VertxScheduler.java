package dev.routesync.sync;

import io.vertx.core.Vertx;
import java.util.concurrent.TimeUnit;

/**
 * {@link Scheduler} on Vert.x timers. Call it from the owning context: Vert.x binds a timer to the
 * context that set it, so the task runs on that same event loop.
 */
public final class VertxScheduler implements Scheduler {

  private final Vertx vertx;

  public VertxScheduler(Vertx vertx) {
    this.vertx = vertx;
  }

  @Override
  public long nanoTime() {
    return System.nanoTime();
  }

  @Override
  public Cancellable schedule(long delayNanos, Runnable task) {
    // Vert.x timers need at least 1 ms.
    long delayMillis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(delayNanos));
    long id = vertx.setTimer(delayMillis, timerId -> task.run());
    return () -> vertx.cancelTimer(id);
  }
}
