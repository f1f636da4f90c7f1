package dev.routesync.serve;

import io.netty.channel.Channel;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One listener's connections: on the socket, the peer's credentials ({@link PeerGate}), checked
 * first; the cap, checked at accept; the count, for a gauge (on the socket, by the peer's uid too);
 * and a {@link ConnectionWatch} per connection for the timeouts. On drain, connections with nothing
 * in flight are closed at once, so a client that sent half a request, or nothing, cannot stretch
 * the drain to its timeout.
 *
 * <p>Threading: {@link #admit} runs on the listener's acceptor event loop, the watches on their
 * connections' event loops; the set is concurrent for that reason.
 */
final class ConnectionGuard {

  private final Listener listener;
  private final ConnectionLimits limits;
  private final ServeObserver observer;
  private final PeerGate peers; // null: a listener without peer credentials (TCP, admin)
  private final Set<ConnectionWatch> open = ConcurrentHashMap.newKeySet();
  private volatile boolean draining;

  /** A listener whose connections carry no peer credentials (TCP, the admin port). */
  ConnectionGuard(Listener listener, ConnectionLimits limits, ServeObserver observer) {
    this(listener, limits, observer, null);
  }

  /** The socket: also reads each connection's peer credentials, and lets {@code peers} judge. */
  ConnectionGuard(
      Listener listener, ConnectionLimits limits, ServeObserver observer, PeerGate peers) {
    this.listener = listener;
    this.limits = limits;
    this.observer = observer;
    this.peers = peers;
    observer.connectionsOpen(listener, open::size);
  }

  /** Takes a connection just accepted, or refuses it (the caller closes it). */
  boolean admit(Channel child) {
    if (draining) {
      return false;
    }
    Peer peer = null;
    if (peers != null) {
      peer = Peer.of(child);
      if (!peers.admits(peer)) {
        observer.connectionClosed(listener, CloseReason.PEER);
        return false;
      }
    }
    if (open.size() >= limits.maxConnections()) {
      observer.connectionRejected(listener);
      return false;
    }
    ConnectionWatch watch = new ConnectionWatch(child, limits, this::closedBecause);
    open.add(watch);
    if (peers != null) {
      long uid = Peer.uidOf(peer);
      observer.socketConnections(uid, 1);
      child
          .closeFuture()
          .addListener(
              closed -> {
                open.remove(watch);
                observer.socketConnections(uid, -1);
              });
    } else {
      child.closeFuture().addListener(closed -> open.remove(watch));
    }
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
