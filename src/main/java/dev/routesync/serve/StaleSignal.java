package dev.routesync.serve;

import dev.routesync.table.FreshnessView;
import java.time.Instant;
import java.util.Optional;

/**
 * The staleness Watch streams tell their subscribers, and the one place that notices it flip.
 * Staleness can change with no version published (an outage passing {@code --relist-after}, a
 * reconnect), so {@link #refresh} is called on a timer, on each publish and on each trust rise; a
 * change wakes every stream, which sends it.
 *
 * <p>Streams read this value, never {@link FreshnessView#stale()} itself: every change of what they
 * read then comes with a wake. Read directly, a flip back and forth between two refreshes could
 * leave a stream that read the middle value with nothing to correct it.
 *
 * <p>Threading: {@link #refresh} from any thread (serialised here); reads from any thread.
 */
final class StaleSignal {

  private final FreshnessView freshness;
  private final Runnable onChange;
  private volatile boolean stale;

  /**
   * @param onChange runs after each change of {@link #stale()}, on the refreshing thread
   */
  StaleSignal(FreshnessView freshness, Runnable onChange) {
    this.freshness = freshness;
    this.onChange = onChange;
    this.stale = freshness.stale();
  }

  /** The staleness as of the latest refresh. */
  boolean stale() {
    return stale;
  }

  /** When the API server was last heard from (read through: it has no flips to miss). */
  Optional<Instant> syncedAt() {
    return freshness.syncedAt();
  }

  /** Looks at the freshness again; wakes the streams when the staleness changed. */
  void refresh() {
    synchronized (this) {
      boolean now = freshness.stale();
      if (now == stale) {
        return;
      }
      stale = now;
    }
    onChange.run();
  }
}
