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
 * @param watchSilence a watch that delivered no event and no bookmark for this long is taken for
 *     hung (a black-holed connection, a stuck proxy) and replaced by a new generation; a real API
 *     server sends a bookmark about every minute
 */
public record RecoverySettings(
    Duration relistAfter,
    Duration resync,
    Duration backoffMin,
    Duration backoffMax,
    Duration connectivityCheck,
    Duration watchSilence) {

  /** The default watch silence ({@code --watch-silence}), 5 minutes. */
  public static final Duration DEFAULT_WATCH_SILENCE = Duration.ofMinutes(5);

  /** With the default watch silence. */
  public RecoverySettings(
      Duration relistAfter,
      Duration resync,
      Duration backoffMin,
      Duration backoffMax,
      Duration connectivityCheck) {
    this(relistAfter, resync, backoffMin, backoffMax, connectivityCheck, DEFAULT_WATCH_SILENCE);
  }

  public RecoverySettings {
    Objects.requireNonNull(relistAfter, "relistAfter");
    Objects.requireNonNull(resync, "resync");
    Objects.requireNonNull(backoffMin, "backoffMin");
    Objects.requireNonNull(backoffMax, "backoffMax");
    Objects.requireNonNull(connectivityCheck, "connectivityCheck");
    Objects.requireNonNull(watchSilence, "watchSilence");
    if (watchSilence.isZero() || watchSilence.isNegative()) {
      throw new IllegalArgumentException("watch silence must be positive");
    }
  }
}
