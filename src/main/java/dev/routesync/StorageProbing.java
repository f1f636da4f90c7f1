package dev.routesync;

import dev.routesync.kube.StorageProbe;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Duration;

/**
 * The agent part that probes the API server's storage now and then: one small GET, so that an
 * outage of etcd behind a live API server shows even while the watches stay open and silent.
 */
final class StorageProbing implements AgentPart {

  /** At most this often, and at least twice per --relist-after: one small GET to the server. */
  private static final Duration EVERY = Duration.ofSeconds(5);

  private final Vertx vertx;
  private final StorageProbe storage;
  private final long everyMillis;
  private long timer = -1;

  StorageProbing(Vertx vertx, StorageProbe storage, Duration relistAfter) {
    this.vertx = vertx;
    this.storage = storage;
    this.everyMillis = every(relistAfter);
  }

  /** An outage of the server's storage shows within --relist-after plus one probe. */
  static long every(Duration relistAfter) {
    long half = relistAfter.toMillis() / 2;
    return Math.max(100, Math.min(EVERY.toMillis(), half));
  }

  @Override
  public String name() {
    return "storage probe";
  }

  @Override
  public Future<Void> start() {
    timer = vertx.setPeriodic(everyMillis, tick -> storage.probe());
    return Future.succeededFuture();
  }

  @Override
  public Future<Void> stop() {
    vertx.cancelTimer(timer);
    return Future.succeededFuture();
  }
}
