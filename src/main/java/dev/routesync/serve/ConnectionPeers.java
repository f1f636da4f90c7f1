package dev.routesync.serve;

import dev.routesync.sidecars.PeerIds;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.net.impl.ConnectionBase;

/**
 * Who is at the other end of a connection, for the xDS server's per-peer limits: on the Unix
 * socket, the peer's uid ({@code SO_PEERCRED}), so one uid's connections share one budget however
 * many it opens. Where the transport gives no credentials (NIO, loopback TCP), each connection is a
 * peer of its own.
 */
final class ConnectionPeers {

  private ConnectionPeers() {}

  /** The uid and pid of the connection's peer, or {@link PeerIds#UNKNOWN} where none is known. */
  static PeerIds idsOf(HttpConnection connection) {
    if (connection instanceof ConnectionBase base) {
      Peer peer = Peer.of(base.channel());
      if (peer != null) {
        return new PeerIds(Peer.uidOf(peer), peer.pid());
      }
    }
    return PeerIds.UNKNOWN;
  }

  /** A key equal for every connection of one uid; the connection itself when none is known. */
  static Object of(HttpConnection connection) {
    if (connection instanceof ConnectionBase base) {
      Peer peer = Peer.of(base.channel());
      if (peer != null) {
        return "uid " + peer.uidLabel();
      }
    }
    return connection;
  }
}
