package dev.routesync.serve;

import io.netty.channel.Channel;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.unix.PeerCredentials;
import java.io.IOException;

/**
 * The kernel's credentials of a Unix socket's peer ({@code SO_PEERCRED}): the process that called
 * {@code connect()}, its effective uid and gid at that moment. The client cannot forge them; it can
 * only be someone else (a process of another uid) by being allowed through the socket's mode.
 *
 * <p>The ids are the kernel's unsigned 32-bit values in Java {@code int}s (uid 4294967294 reads as
 * -2); {@link #uidLabel()} prints them unsigned.
 *
 * @param pid the connecting process (which may have exited since, or passed the descriptor on)
 * @param uid its effective uid
 * @param gid its effective (primary) gid; supplementary groups are not reported by {@code
 *     SO_PEERCRED}
 */
record Peer(int pid, int uid, int gid) {

  /**
   * The uid given to a connection whose credentials could not be read, in {@link ServeObserver}.
   */
  static final long UNKNOWN_UID = -1;

  /**
   * The credentials of an accepted connection, or null when the transport has none to give (NIO,
   * TCP) or the kernel would not say. Cheap: one {@code getsockopt} on the accepted descriptor,
   * which works before the channel is registered with its event loop.
   */
  static Peer of(Channel channel) {
    if (channel instanceof EpollDomainSocketChannel epoll) {
      try {
        PeerCredentials credentials = epoll.peerCredentials();
        int[] gids = credentials.gids();
        return new Peer(credentials.pid(), credentials.uid(), gids.length > 0 ? gids[0] : -1);
      } catch (IOException | RuntimeException e) {
        return null;
      }
    }
    return null;
  }

  /** The uid as the kernel's unsigned value, {@link #UNKNOWN_UID} for a null peer. */
  static long uidOf(Peer peer) {
    return peer == null ? UNKNOWN_UID : Integer.toUnsignedLong(peer.uid);
  }

  String uidLabel() {
    return Integer.toUnsignedString(uid);
  }

  /** For logs: {@code uid=1000 gid=1000 pid=4711}. */
  String describe() {
    return "uid="
        + Integer.toUnsignedString(uid)
        + " gid="
        + Integer.toUnsignedString(gid)
        + " pid="
        + pid;
  }
}
