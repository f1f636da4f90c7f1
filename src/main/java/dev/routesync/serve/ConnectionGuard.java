package dev.routesync.serve;

import io.netty.channel.Channel;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

/**
 * One listener's connections: on the socket, the peer's credentials ({@link PeerGate}), checked
 * first; the cap and each client's share of it ({@link ClientShare}: per uid on the socket, per
 * source address on the admin port), checked at accept; the count, for a gauge (on the socket, by
 * the peer's uid too); and a {@link ConnectionWatch} per connection for the timeouts. On drain,
 * connections with nothing in flight are closed at once, so a client that sent half a request, or
 * nothing, cannot stretch the drain to its timeout.
 *
 * <p>Threading: {@link #admit} runs on the listener's acceptor event loop, the watches and the
 * close listeners on their connections' event loops; the collections are concurrent for that
 * reason, and a connection is counted out exactly once ({@link Open#release}).
 */
final class ConnectionGuard {

  private final Listener listener;
  private final ConnectionLimits limits;
  private final ServeObserver observer;
  private final PeerGate peers; // null: a listener without peer credentials (TCP, admin)
  private final Function<Channel, Peer> credentials;
  private final ClientShare share; // null: the cap alone (the loopback TCP listener)
  private final StreamShare streams; // the socket only
  private final Set<Open> open = ConcurrentHashMap.newKeySet();
  private final Map<Object, Integer> perClient = new ConcurrentHashMap<>();
  private volatile boolean draining;

  /** One open connection, and the client it counts against (null: none known). */
  private final class Open {
    final ConnectionWatch watch;
    final Object client;
    final long uid;
    private final AtomicBoolean released = new AtomicBoolean();

    Open(ConnectionWatch watch, Object client, long uid) {
      this.watch = watch;
      this.client = client;
      this.uid = uid;
    }

    void release() {
      if (released.compareAndSet(false, true)) {
        open.remove(this);
        if (client != null) {
          perClient.computeIfPresent(client, (key, count) -> count == 1 ? null : count - 1);
        }
        if (peers != null) {
          observer.socketConnections(uid, -1);
        }
      }
    }
  }

  /** The loopback TCP listener: the cap alone. */
  static ConnectionGuard tcp(ConnectionLimits limits, ServeObserver observer) {
    return new ConnectionGuard(Listener.TCP, limits, observer, null, Peer::of, null, null);
  }

  /** The admin port: the cap, shared out per source address, idle connections evicted. */
  static ConnectionGuard admin(ConnectionLimits limits, ServeObserver observer) {
    return sharedPerSource(Listener.ADMIN, limits, observer);
  }

  /** The debug listener: as the admin port, counted apart. */
  static ConnectionGuard debug(ConnectionLimits limits, ServeObserver observer) {
    return sharedPerSource(Listener.DEBUG, limits, observer);
  }

  private static ConnectionGuard sharedPerSource(
      Listener listener, ConnectionLimits limits, ServeObserver observer) {
    return new ConnectionGuard(
        listener,
        limits,
        observer,
        null,
        Peer::of,
        new SourceShare(ConnectionLimits.ADMIN_MAX_PER_SOURCE),
        null);
  }

  /**
   * The socket: reads each connection's peer credentials with {@code credentials} ({@link Peer#of}
   * but in tests), lets {@code peers} judge, shares the cap out per uid, and counts each
   * connection's HTTP/2 streams by its uid in {@code streams}.
   */
  static ConnectionGuard socket(
      ConnectionLimits limits,
      ServeObserver observer,
      PeerGate peers,
      Function<Channel, Peer> credentials,
      StreamShare streams) {
    return new ConnectionGuard(
        Listener.SOCKET, limits, observer, peers, credentials, new UidShare(), streams);
  }

  private ConnectionGuard(
      Listener listener,
      ConnectionLimits limits,
      ServeObserver observer,
      PeerGate peers,
      Function<Channel, Peer> credentials,
      ClientShare share,
      StreamShare streams) {
    this.listener = listener;
    this.limits = limits;
    this.observer = observer;
    this.peers = peers;
    this.credentials = credentials;
    this.share = share;
    this.streams = streams;
    observer.connectionsOpen(listener, open::size);
  }

  /** Takes a connection just accepted, or refuses it (the caller closes it). */
  boolean admit(Channel child) {
    if (draining) {
      return false;
    }
    Peer peer = null;
    if (peers != null) {
      peer = credentials.apply(child);
      if (!peers.admits(peer)) {
        observer.connectionClosed(listener, CloseReason.PEER);
        return false;
      }
    }
    long uid = Peer.uidOf(peer);
    Object client = clientOf(child, peer);
    if (!makeRoom(client, uid)) {
      return false;
    }
    ConnectionWatch watch;
    if (streams != null && peer != null) {
      child.attr(StreamShare.UID).set(uid);
      watch =
          new ConnectionWatch(
              child, limits, this::closedBecause, delta -> streams.changed(uid, delta));
    } else {
      watch = new ConnectionWatch(child, limits, this::closedBecause);
    }
    Open entry = new Open(watch, client, uid);
    open.add(entry);
    if (client != null) {
      perClient.merge(client, 1, Integer::sum);
    }
    if (peers != null) {
      observer.socketConnections(uid, 1);
    }
    child.closeFuture().addListener(closed -> entry.release());
    watch.install();
    return true;
  }

  /** Whether the new connection of {@code client} may stay, after evicting one if need be. */
  private boolean makeRoom(Object client, long uid) {
    int total = open.size();
    int cap = limits.maxConnections();
    ClientShare.Verdict verdict;
    if (share == null || client == null) {
      verdict = total >= cap ? ClientShare.Verdict.REFUSE_CAP : ClientShare.Verdict.ADMIT;
    } else {
      verdict = share.judge(total, perClient.getOrDefault(client, 0), cap);
    }
    switch (verdict) {
      case ADMIT:
        return true;
      case EVICT_OWN:
      case EVICT_ANY:
        Open victim = idlest(verdict == ClientShare.Verdict.EVICT_OWN ? client : null);
        if (victim != null) {
          victim.release(); // counted out now: the cap holds while it closes on its own loop
          victim.watch.evict();
          return true;
        }
        observer.connectionRejected(listener);
        return false;
      default:
        observer.connectionRejected(listener);
        if (peers != null) {
          observer.socketRefused(
              uid,
              verdict == ClientShare.Verdict.REFUSE_SHARE
                  ? SocketRefusal.UID_SHARE
                  : SocketRefusal.CAP);
        }
        return false;
    }
  }

  /** The connection idle the longest, of {@code client} (null: of anyone); null if none idle. */
  private Open idlest(Object client) {
    Open idlest = null;
    long since = Long.MAX_VALUE;
    for (Open candidate : open) {
      long idle = candidate.watch.idleSince();
      if ((client == null || client.equals(candidate.client)) && idle < since) {
        since = idle;
        idlest = candidate;
      }
    }
    return idlest;
  }

  /** What a connection counts against: its uid on the socket, its address elsewhere. */
  private Object clientOf(Channel child, Peer peer) {
    if (share == null) {
      return null;
    }
    if (peers != null) {
      return peer == null ? null : Peer.uidOf(peer); // unknown credentials: the cap alone
    }
    return child.remoteAddress() instanceof InetSocketAddress inet ? inet.getAddress() : null;
  }

  /** Closes every connection with nothing in flight; the others end with their last request. */
  void drain() {
    draining = true;
    for (Open entry : open) {
      entry.watch.drain();
    }
  }

  int open() {
    return open.size();
  }

  private void closedBecause(CloseReason reason) {
    observer.connectionClosed(listener, reason);
  }
}
