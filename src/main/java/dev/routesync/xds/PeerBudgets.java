package dev.routesync.xds;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The shares of {@link XdsLimits} each peer holds: the names its streams subscribe and the bytes of
 * its responses being built or waiting to be written, and the bytes of everyone's. A peer is what
 * {@code XdsServer}'s peer function says (the uid on the socket): one peer cannot take another's
 * share by opening more connections or streams. A peer's entry goes with its last stream, so the
 * map holds at most one entry per open stream.
 *
 * <p>Threading: streams of one peer run on different event loops; the counters are atomic, and a
 * reservation that would cross a limit is taken back, so no interleaving crosses it.
 */
final class PeerBudgets {

  /** One peer's share. */
  static final class Share {
    private final Object peer;
    private final AtomicLong names = new AtomicLong();
    private final AtomicLong pendingBytes = new AtomicLong();
    private int streams; // guarded by the map's compute

    private Share(Object peer) {
      this.peer = peer;
    }

    long names() {
      return names.get();
    }

    long pendingBytes() {
      return pendingBytes.get();
    }
  }

  private final XdsLimits limits;
  private final Map<Object, Share> shares = new ConcurrentHashMap<>();
  private final AtomicLong pendingBytes = new AtomicLong();
  private final AtomicLong names = new AtomicLong();
  private final Set<AdsStream> waiting = ConcurrentHashMap.newKeySet();

  PeerBudgets(XdsLimits limits) {
    this.limits = limits;
  }

  XdsLimits limits() {
    return limits;
  }

  /** The share of {@code peer}, which a new stream of it joins; {@link #leave} when it ends. */
  Share join(Object peer) {
    return shares.compute(
        peer,
        (key, share) -> {
          Share joined = share == null ? new Share(key) : share;
          joined.streams++;
          return joined;
        });
  }

  void leave(Share share) {
    shares.computeIfPresent(
        share.peer, (key, held) -> held == share && --held.streams == 0 ? null : held);
  }

  /** Which names limit a subscription would cross. */
  enum NamesLimit {
    NONE,
    PEER,
    ALL
  }

  /**
   * Adds {@code change} names to the peer's count and everyone's; when that would take either over
   * its limit, adds nothing and says which. A negative change always succeeds.
   */
  NamesLimit addNames(Share share, long change) {
    long now = names.addAndGet(change);
    if (change > 0 && now > limits.maxNames()) {
      names.addAndGet(-change);
      return NamesLimit.ALL;
    }
    long peer = share.names.addAndGet(change);
    if (change > 0 && peer > limits.maxNamesPerPeer()) {
      share.names.addAndGet(-change);
      names.addAndGet(-change);
      return NamesLimit.PEER;
    }
    return NamesLimit.NONE;
  }

  /** Reserves {@code bytes} of pending response for the peer; false when a budget is spent. */
  boolean reserveBytes(Share share, long bytes) {
    if (pendingBytes.addAndGet(bytes) > limits.maxPendingBytes()) {
      pendingBytes.addAndGet(-bytes);
      return false;
    }
    if (share.pendingBytes.addAndGet(bytes) > limits.maxPendingBytesPerPeer()) {
      share.pendingBytes.addAndGet(-bytes);
      pendingBytes.addAndGet(-bytes);
      return false;
    }
    return true;
  }

  /** Gives back bytes reserved for the peer, and wakes the streams that waited for room. */
  void releaseBytes(Share share, long bytes) {
    if (bytes <= 0) {
      return;
    }
    share.pendingBytes.addAndGet(-bytes);
    pendingBytes.addAndGet(-bytes);
    for (AdsStream stream : waiting) {
      waiting.remove(stream);
      stream.nudge();
    }
  }

  /**
   * {@code stream} could not reserve {@code bytes}: it is nudged on the next release. When the room
   * came back meanwhile, it is nudged now, so no release goes unheard.
   */
  void awaitRoom(AdsStream stream, Share share, long bytes) {
    waiting.add(stream);
    boolean room =
        pendingBytes.get() + bytes <= limits.maxPendingBytes()
            && share.pendingBytes.get() + bytes <= limits.maxPendingBytesPerPeer();
    if (room && waiting.remove(stream)) {
      stream.nudge();
    }
  }

  /** Forgets a stream that ended while waiting. */
  void forget(AdsStream stream) {
    waiting.remove(stream);
  }

  /** Bytes pending over every peer, for tests. */
  long pendingBytes() {
    return pendingBytes.get();
  }

  /** Peers with an open stream, for tests. */
  int peers() {
    return shares.size();
  }
}
