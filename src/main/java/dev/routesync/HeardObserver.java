package dev.routesync;

import dev.routesync.kube.watch.RelistReason;
import dev.routesync.kube.watch.RestartReason;
import dev.routesync.kube.watch.WatchEvent;
import dev.routesync.kube.watch.WatchObserver;
import dev.routesync.table.Freshness;
import java.time.Clock;
import java.util.function.LongSupplier;

/**
 * A table watch's observer that also tells {@link Freshness} when the API server was last heard
 * from (a completed list, an event, a bookmark), so {@code synced_at} is the watches' own account.
 */
final class HeardObserver implements WatchObserver {

  private final WatchObserver delegate;
  private final Freshness freshness;
  private final Clock clock;

  HeardObserver(WatchObserver delegate, Freshness freshness, Clock clock) {
    this.delegate = delegate;
    this.freshness = freshness;
    this.clock = clock;
  }

  @Override
  public void event(WatchEvent.Type type) {
    delegate.event(type);
    freshness.heard(clock.instant());
  }

  @Override
  public void listed() {
    delegate.listed();
    freshness.heard(clock.instant());
  }

  /** A bookmark confirms the watch's state as of now, as an event does. */
  @Override
  public void bookmark() {
    delegate.bookmark();
    freshness.heard(clock.instant());
  }

  @Override
  public void relist(RelistReason reason) {
    delegate.relist(reason);
  }

  @Override
  public void restarted(RestartReason reason) {
    delegate.restarted(reason);
  }

  @Override
  public void connected(boolean connected) {
    delegate.connected(connected);
  }

  @Override
  public void bindDisconnected(LongSupplier disconnectedNanos) {
    delegate.bindDisconnected(disconnectedNanos);
  }
}
