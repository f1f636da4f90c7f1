package dev.routesync;

import dev.routesync.serve.LivenessVerdict;
import dev.routesync.sync.Coalescer;
import dev.routesync.units.Durations;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.time.Duration;

/**
 * The agent's liveness, as kubelet's probe asks for it: alive while the sync loop answers and no
 * change waits unpublished for long. A wedged loop is the one failure a restart cures; an API
 * server outage is not one (the agent serves its last table through it).
 */
final class SyncLiveness {

  /** A change unpublished for this long means the sync loop is wedged: liveness fails. */
  static final Duration STUCK_AFTER = Duration.ofSeconds(60);

  /** The sync loop must answer within this. */
  static final Duration TIMEOUT = Duration.ofSeconds(5);

  private final Vertx vertx;
  private final Context syncContext;
  private final Coalescer coalescer;

  SyncLiveness(Vertx vertx, Context syncContext, Coalescer coalescer) {
    this.vertx = vertx;
    this.syncContext = syncContext;
    this.coalescer = coalescer;
  }

  Future<LivenessVerdict> check() {
    Promise<LivenessVerdict> verdict = Promise.promise();
    syncContext.runOnContext(
        ignored -> {
          long waited = coalescer.oldestPendingAgeNanos();
          verdict.tryComplete(
              waited > STUCK_AFTER.toNanos()
                  ? LivenessVerdict.notAlive(
                      "a change has waited " + waited / 1_000_000_000 + "s unpublished")
                  : LivenessVerdict.ALIVE);
        });
    long timer =
        vertx.setTimer(
            TIMEOUT.toMillis(),
            id ->
                verdict.tryComplete(
                    LivenessVerdict.notAlive(
                        "sync event loop did not answer within " + Durations.format(TIMEOUT))));
    return verdict.future().andThen(done -> vertx.cancelTimer(timer));
  }
}
