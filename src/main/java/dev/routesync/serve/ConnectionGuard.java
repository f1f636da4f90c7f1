package dev.routesync.serve;

import io.netty.channel.Channel;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One listener's connections: the cap, checked at accept; the count, for a gauge; and a {@link
 * ConnectionWatch} per connection for the timeouts. On drain, connections with nothing in flight
 * are closed at once, so a client that sent half a request, or nothing, cannot stretch the drain to
 * its timeout.
 *
 * <p>Threading: {@link #admit} runs on the listener's acceptor event loop, the watches on their
 * connections' event loops; the set is concurrent for that reason.
 */
final class ConnectionGuard {

  private final Listener listener;
  private final ConnectionLimits limits;
  private final ServeObserver observer;
  private final Set<ConnectionWatch> open = ConcurrentHashMap.newKeySet();
  private volatile boolean draining;

  ConnectionGuard(Listener listener, ConnectionLimits limits, ServeObserver observer) {
    this.listener = listener;
    this.limits = limits;
    this.observer = observer;
    observer.connectionsOpen(listener, open::size);
  }

  /** Takes a connection just accepted, or refuses it (the caller closes it). */
  boolean admit(Channel child) {
    if (draining) {
      return false;
    }
    if (open.size() >= limits.maxConnections()) {
      observer.connectionRejected(listener);
      return false;
    }
    ConnectionWatch watch = new ConnectionWatch(child, limits, this::closedBecause);
    open.add(watch);
    child.closeFuture().addListener(closed -> open.remove(watch));
    watch.install();
    return true;
  }

  /** Closes every connection with nothing in flight; the others end with their last request. */
  void drain() {
    draining = true;
    for (ConnectionWatch watch : open) {
      watch.drain();
    }
  }

  int open() {
    return open.size();
  }

  private void closedBecause(CloseReason reason) {
    observer.connectionClosed(listener, reason);
  }
}
