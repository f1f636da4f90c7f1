package dev.routesync.sync;

import dev.routesync.table.ServiceKey;
import dev.routesync.table.TopologyDecision;
import java.time.Duration;
import java.time.Instant;

/**
 * What the sync stage tells the outside about its work, in its own terms. The stage knows only this
 * interface; the metrics behind it live in {@code observe/}, wired by the agent.
 *
 * <p>Threading: called on the sync context; implementations must be cheap and must not throw.
 */
public interface SyncObserver {

  /**
   * A batch was flushed.
   *
   * @param cause what triggered the flush
   * @param services how many Services it recomputed
   * @param waitNanos how long its oldest change waited for the flush
   */
  void batch(Batch.Cause cause, int services, long waitNanos);

  /** Recomputing a batch and publishing the table took {@code nanos}. */
  void flushed(long nanos);

  /**
   * A changed Service reached the table {@code nanos} after its change arrived; negative counts as
   * zero.
   */
  void publishLatency(long nanos);

  /**
   * A changed Service reached the table this long after its trigger-time annotation; negative
   * (clock skew between the controller and this node) counts as zero.
   */
  void networkProgramming(Duration sinceTrigger);

  /**
   * A changed Service's topology decision became a fallback it was not in before: hints that this
   * node does not follow ({@code decision.fallback()} says why). Called once per such change, not
   * per flush.
   */
  default void topologyFallback(ServiceKey key, TopologyDecision decision) {}

  /**
   * {@code key}'s endpoints changed at table version {@code version}, a change triggered at {@code
   * trigger} (its measured network programming, above): the streams that carry this version to
   * their clients measure the rest of the way. Nothing by default.
   */
  default void programmed(ServiceKey key, long version, Instant trigger) {}
}
