package dev.routesync.observe;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.HashMap;
import java.util.Map;

/**
 * {@code routesync_connections{uid}}: the socket's open connections by the peer's uid, with a
 * bounded label set. A client picks its uid (as far as the socket's mode lets it in), so at most
 * {@link #LABELLED_UIDS} uids get a series of their own, the ones with the most open connections;
 * the rest are summed under {@code uid="other"}, and connections whose credentials could not be
 * read (the NIO transport) under {@code uid="unknown"}. Never more than {@value #LABELLED_UIDS} + 2
 * series, whatever the clients do.
 *
 * <p>A gauge of open connections, not a counter of accepted ones: a uid's series can then move to
 * {@code other} and back without a counter going down, and it shows who holds connections now (a
 * sidecar that leaks them). A uid keeps its series, at 0 once its connections are gone, until a uid
 * with more open connections needs the slot: a steady node's series do not come and go. A uid out
 * of the slots takes one when it has more connections open than the smallest labelled uid (strictly
 * more, so two uids at a tie do not swap at every connection).
 *
 * <p>Memory: one entry per uid with a connection open, so bounded by the listener's connection cap.
 * Threading: opened on the acceptor event loop, closed on each connection's, read at scrape; one
 * lock around a few map operations (N is small).
 */
public final class UidConnections {

  /** Uids that get a series of their own. */
  public static final int LABELLED_UIDS = 8;

  static final String NAME = "routesync.connections";
  static final String OTHER = "other";
  static final String UNKNOWN = "unknown";
  private static final String DESCRIPTION =
      "Open socket connections by the peer's uid (SO_PEERCRED): the "
          + LABELLED_UIDS
          + " uids with the most, then other; unknown without credentials";

  private final MeterRegistry registry;
  private final int labelled;
  private final Map<Long, Integer> open = new HashMap<>(); // uid -> open connections, never 0
  private final Map<Long, Gauge> series = new HashMap<>(); // the labelled uids
  private int known; // open connections with a uid
  private int unknown;

  UidConnections(MeterRegistry registry) {
    this(registry, LABELLED_UIDS);
  }

  UidConnections(MeterRegistry registry, int labelled) {
    this.registry = registry;
    this.labelled = labelled;
    register(OTHER, this::other);
    register(UNKNOWN, this::unknown);
  }

  /** A connection from {@code uid} (-1: unknown) opened ({@code +1}) or closed ({@code -1}). */
  synchronized void changed(long uid, int delta) {
    if (uid < 0) {
      unknown += delta;
      return;
    }
    known += delta;
    int now = open.getOrDefault(uid, 0) + delta;
    if (now > 0) {
      open.put(uid, now);
    } else {
      open.remove(uid);
    }
    if (delta > 0 && !series.containsKey(uid)) {
      if (series.size() < labelled) {
        label(uid);
      } else {
        long smallest = smallestLabelled();
        if (now > openOf(smallest)) {
          registry.remove(series.remove(smallest));
          label(uid);
        }
      }
    }
  }

  private long smallestLabelled() {
    long smallest = -1;
    int least = Integer.MAX_VALUE;
    for (Long uid : series.keySet()) {
      int count = openOf(uid);
      if (count < least) {
        least = count;
        smallest = uid;
      }
    }
    return smallest;
  }

  private void label(long uid) {
    series.put(uid, register(Long.toString(uid), () -> openOf(uid)));
  }

  private Gauge register(String uid, java.util.function.Supplier<Number> value) {
    return Gauge.builder(NAME, value)
        .description(DESCRIPTION)
        .tag("uid", uid)
        .strongReference(true)
        .register(registry);
  }

  /** Uids with a connection open (what this holds in memory). */
  synchronized int tracked() {
    return open.size();
  }

  private synchronized int openOf(long uid) {
    return open.getOrDefault(uid, 0);
  }

  private synchronized int other() {
    int inSeries = 0;
    for (Long uid : series.keySet()) {
      inSeries += openOf(uid);
    }
    return known - inSeries;
  }

  private synchronized int unknown() {
    return unknown;
  }
}
