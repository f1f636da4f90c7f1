package dev.routesync.kube.watch;

import dev.routesync.sync.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the watch is up and, while it is down, since when: the outage length decides when to stop
 * trusting a resumed watch, and it is exported as {@code routesync.api.disconnected} (seconds) next
 * to {@code routesync.api.connected}.
 *
 * <p>Threading: {@link #up}, {@link #down} and {@link #outageNanos} run on the sync context; the
 * metrics thread reads {@link #disconnectedNanos} through a volatile mirror of the same instant.
 */
final class Connectivity {

  private static final Logger LOG = LoggerFactory.getLogger(Connectivity.class);
  private static final long UP = Long.MIN_VALUE;

  private final String kind;
  private final Scheduler clock;
  private final WatchObserver observer;
  private long downSince = UP;
  private volatile long downSinceForMetrics = UP;

  Connectivity(String kind, Scheduler clock, WatchObserver observer) {
    this.kind = kind;
    this.clock = clock;
    this.observer = observer;
    observer.bindDisconnected(this::disconnectedNanos);
  }

  /** The watch is established (a list just synced, or the informers report watching). */
  void up() {
    if (downSince != UP) {
      LOG.debug("{} watch is up", kind);
    }
    downSince = UP;
    downSinceForMetrics = UP;
    observer.connected(true);
  }

  /** The watch is down; an outage already under way keeps its start. */
  void down() {
    if (downSince == UP) {
      LOG.debug("{} watch is down", kind);
      downSince = clock.nanoTime();
      downSinceForMetrics = downSince;
    }
    observer.connected(false);
  }

  /** Watching has stopped for good: not connected, whatever the last sample said. */
  void stopped() {
    observer.connected(false);
  }

  /** How long the current outage has lasted, or 0 while up. Sync context. */
  long outageNanos() {
    return downSince == UP ? 0 : clock.nanoTime() - downSince;
  }

  /** The same as {@link #outageNanos}, for any thread. */
  long disconnectedNanos() {
    long since = downSinceForMetrics;
    return since == UP ? 0 : Math.max(0, clock.nanoTime() - since);
  }
}
