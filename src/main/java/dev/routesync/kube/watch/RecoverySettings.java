package dev.routesync.kube.watch;

import java.time.Duration;
import java.util.Objects;

/**
 * How a {@link ResourceWatch} recovers, whatever it watches. Every watch of an agent shares them;
 * what is watched comes from its {@link ResourceSpec}. The user-facing bounds are checked where the
 * values are parsed ({@code WatchSettings.of}); each timer rejects what it cannot run with.
 *
 * @param relistAfter relist after a disconnection longer than this, because a server may resume a
 *     watch without replaying the deletions made while we were away
 * @param resync anti-entropy relist period (jittered +-10%); zero turns it off
 * @param backoffMin first retry delay after a failed list or watch
 * @param backoffMax retry delay cap
 * @param connectivityCheck how often the watch's health is sampled
 */
public record RecoverySettings(
    Duration relistAfter,
    Duration resync,
    Duration backoffMin,
    Duration backoffMax,
    Duration connectivityCheck) {

  public RecoverySettings {
    Objects.requireNonNull(relistAfter, "relistAfter");
    Objects.requireNonNull(resync, "resync");
    Objects.requireNonNull(backoffMin, "backoffMin");
    Objects.requireNonNull(backoffMax, "backoffMax");
    Objects.requireNonNull(connectivityCheck, "connectivityCheck");
  }
}
