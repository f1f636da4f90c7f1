package dev.routesync.serve;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The bytes of Watch messages handed to Vert.x and not yet written out, over every stream: a budget
 * like xDS's pending bytes. Each stream's copy of a message waits in its connection's HTTP/2 queue
 * until the client reads it, so without a budget the node's sidecars reconnecting together (every
 * agent restart) would each hold a full snapshot at once: 100 all-namespaces Watches at 10,000
 * endpoints were enough to end a 96 MiB agent. With it, a stream whose message does not fit waits,
 * open and silent, until others' writes complete; the snapshots go out a budget at a time.
 *
 * <p>A message larger than the whole budget goes when nothing else is pending, so every stream
 * progresses: memory is then one such message, never several.
 *
 * <p>Threading: streams reserve and release on their own event loops; the counter is atomic, and a
 * waiting stream is woken by the release that makes room (or at once, when the room came back
 * before it registered).
 */
final class WatchBytes {

  /** Woken when bytes are released. */
  interface Waiter {
    void roomFreed();
  }

  private final long maxBytes;
  private final AtomicLong pending = new AtomicLong();
  private final Set<Waiter> waiting = ConcurrentHashMap.newKeySet();

  WatchBytes(long maxBytes) {
    if (maxBytes <= 0) {
      throw new IllegalArgumentException("maxBytes must be positive: " + maxBytes);
    }
    this.maxBytes = maxBytes;
  }

  /** A sixth of the heap, as xDS's pending budget, at least 4 MiB. */
  static WatchBytes ofThisHeap() {
    return new WatchBytes(Math.max(4L << 20, Runtime.getRuntime().maxMemory() / 6));
  }

  long maxBytes() {
    return maxBytes;
  }

  long pendingBytes() {
    return pending.get();
  }

  /** Reserves {@code bytes}; false when they do not fit beside what is pending. */
  boolean reserve(long bytes) {
    while (true) {
      long now = pending.get();
      if (now > 0 && now + bytes > maxBytes) {
        return false;
      }
      if (pending.compareAndSet(now, now + bytes)) {
        return true;
      }
    }
  }

  /** Gives back reserved bytes, and wakes every stream that waited for room. */
  void release(long bytes) {
    if (bytes <= 0) {
      return;
    }
    pending.addAndGet(-bytes);
    for (Waiter waiter : waiting) {
      if (waiting.remove(waiter)) {
        waiter.roomFreed();
      }
    }
  }

  /**
   * {@code waiter} could not reserve {@code bytes}: it is woken by the next release, or now, when
   * the room came back meanwhile, so no release goes unheard.
   */
  void awaitRoom(Waiter waiter, long bytes) {
    waiting.add(waiter);
    long now = pending.get();
    if ((now == 0 || now + bytes <= maxBytes) && waiting.remove(waiter)) {
      waiter.roomFreed();
    }
  }

  /** Forgets a stream that ended while waiting. */
  void forget(Waiter waiter) {
    waiting.remove(waiter);
  }

  /** Streams waiting for room. */
  int waiting() {
    return waiting.size();
  }
}
