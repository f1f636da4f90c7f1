package dev.routesync.observe;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * The agent's connection to the API server as its two gauges see it, over every watch it runs (the
 * EndpointSlice and Services watches, and whatever else): connected only while every watch is,
 * disconnected for as long as the longest outage. One gauge per watch kind would each tell half the
 * story; one value written by every watch would flap with whichever wrote last.
 *
 * <p>Threading: any thread.
 */
final class ApiConnection {

  private final List<AtomicInteger> connected = new CopyOnWriteArrayList<>();
  private final List<LongSupplier> disconnected = new CopyOnWriteArrayList<>();

  /** A new watch's connected flag, down until it says otherwise. */
  AtomicInteger addWatch() {
    AtomicInteger flag = new AtomicInteger();
    connected.add(flag);
    return flag;
  }

  void addDisconnected(LongSupplier disconnectedNanos) {
    disconnected.add(disconnectedNanos);
  }

  /** 1 while every watch is connected; 0 when any is down, or before any watch exists. */
  int connected() {
    if (connected.isEmpty()) {
      return 0;
    }
    for (AtomicInteger flag : connected) {
      if (flag.get() != 1) {
        return 0;
      }
    }
    return 1;
  }

  /** The longest current outage of any watch, 0 while all are up. */
  long disconnectedNanos() {
    long longest = 0;
    for (LongSupplier supplier : disconnected) {
      longest = Math.max(longest, supplier.getAsLong());
    }
    return longest;
  }
}
