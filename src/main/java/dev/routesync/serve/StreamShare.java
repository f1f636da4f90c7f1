package dev.routesync.serve;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.net.impl.ConnectionBase;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The socket's HTTP/2 streams (calls) by the peer's uid, and their cap ({@code --max-streams})
 * shared out as the connections are ({@link UidShare}): a uid holding half of it or more may not
 * take from the last quarter. Without it, a uid within its share of connections could still open
 * 1,024 streams on each.
 *
 * <p>Counted where Netty opens and closes streams ({@link ConnectionWatch}), judged where a call is
 * handled ({@link ApiServer}): a call over the share is answered {@code RESOURCE_EXHAUSTED} and
 * reset, so the client gets a status instead of a REFUSED_STREAM that it would retry at once.
 *
 * <p>Threading: counted on each connection's event loop, read on any; the counts are atomic, and a
 * judgement may be off by the calls opening at that very moment on other loops.
 */
final class StreamShare {

  /** The uid of a socket connection, set at accept; absent when its credentials are unknown. */
  static final AttributeKey<Long> UID = AttributeKey.valueOf("routesync.peer.uid");

  private final int maxStreams;
  private final ClientShare share = new UidShare();
  private final AtomicInteger total = new AtomicInteger();
  private final Map<Long, AtomicInteger> byUid = new ConcurrentHashMap<>();

  StreamShare(int maxStreams) {
    this.maxStreams = maxStreams;
  }

  /** Streams of {@code uid} opened ({@code delta > 0}) or closed. */
  void changed(long uid, int delta) {
    total.addAndGet(delta);
    byUid.compute(
        uid,
        (key, count) -> {
          AtomicInteger now = count == null ? new AtomicInteger() : count;
          return now.addAndGet(delta) <= 0 ? null : now;
        });
  }

  /**
   * Why a call just opened by {@code uid} (and so already counted) may not proceed, or null when it
   * may.
   */
  SocketRefusal refusal(long uid) {
    AtomicInteger mine = byUid.get(uid);
    int ofUid = mine == null ? 0 : mine.get();
    return switch (share.judge(total.get() - 1, Math.max(0, ofUid - 1), maxStreams)) {
      case ADMIT -> null;
      case REFUSE_SHARE -> SocketRefusal.STREAM_SHARE;
      default -> SocketRefusal.STREAM_CAP;
    };
  }

  int maxStreams() {
    return maxStreams;
  }

  /** The uid {@link ConnectionGuard} gave the connection, or null (none known, or not ours). */
  static Long uidOf(HttpConnection connection) {
    if (connection instanceof ConnectionBase base) {
      Channel channel = base.channelHandlerContext().channel();
      return channel.attr(UID).get();
    }
    return null;
  }

  int open() {
    return total.get();
  }
}
