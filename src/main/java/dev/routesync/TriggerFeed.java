package dev.routesync;

import dev.routesync.sidecars.TriggerLedger;
import dev.routesync.sync.Batch;
import dev.routesync.sync.SyncObserver;
import dev.routesync.table.ServiceKey;
import java.time.Duration;
import java.time.Instant;

/**
 * The sync stage's observer (the metrics) with each change's trigger time also written to the
 * streams' {@link TriggerLedger}, so that a client's ACK of the version carrying the change
 * measures its propagation.
 */
final class TriggerFeed implements SyncObserver {

  private final SyncObserver metrics;
  private final TriggerLedger ledger;

  TriggerFeed(SyncObserver metrics, TriggerLedger ledger) {
    this.metrics = metrics;
    this.ledger = ledger;
  }

  @Override
  public void batch(Batch.Cause cause, int services, long waitNanos) {
    metrics.batch(cause, services, waitNanos);
  }

  @Override
  public void flushed(long nanos) {
    metrics.flushed(nanos);
  }

  @Override
  public void publishLatency(long nanos) {
    metrics.publishLatency(nanos);
  }

  @Override
  public void networkProgramming(Duration sinceTrigger) {
    metrics.networkProgramming(sinceTrigger);
  }

  @Override
  public void programmed(ServiceKey key, long version, Instant trigger) {
    metrics.programmed(key, version, trigger);
    ledger.programmed(key, version, trigger);
  }
}
