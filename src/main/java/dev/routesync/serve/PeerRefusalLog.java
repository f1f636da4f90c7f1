package dev.routesync.serve;

import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The warning for a refused socket peer: one line per uid per {@link #INTERVAL} at most, saying how
 * many refusals went unlogged since the last line, so a client retrying in a loop cannot flood the
 * log. Memory is bounded: it remembers at most {@link #MAX_UIDS} uids, and refusals of uids beyond
 * them share one line per interval.
 *
 * <p>Threading: called on the socket's acceptor event loop; synchronized anyway (a few map
 * operations), so that it stays correct if Vert.x ever accepts on several loops.
 */
final class PeerRefusalLog {

  static final Duration INTERVAL = Duration.ofMinutes(1);
  static final int MAX_UIDS = 64;

  private static final Logger LOG = LoggerFactory.getLogger(PeerRefusalLog.class);

  private final LongSupplier nanoTime;
  private final long intervalNanos;
  // uid -> its last line and the refusals since. Moved to the tail at each line, so the head holds
  // the oldest lines: when the map is full, stale entries are dropped from there (with their
  // counts; routesync_connections_closed_total{reason="peer"} has every refusal).
  private final Map<Long, Line> lines = new LinkedHashMap<>();
  // Uids beyond MAX_UIDS share this one line.
  private final Line overflow = new Line();

  private static final class Line {
    boolean logged;
    long at;
    int unlogged;
  }

  PeerRefusalLog(LongSupplier nanoTime) {
    this(nanoTime, INTERVAL);
  }

  PeerRefusalLog(LongSupplier nanoTime, Duration interval) {
    this.nanoTime = nanoTime;
    this.intervalNanos = interval.toNanos();
  }

  /**
   * Logs the refusal of {@code peer} (null: credentials unreadable) for {@code why}, unless that
   * uid's line was logged within the interval.
   *
   * @return the line logged, or null when it was left out
   */
  synchronized String refused(Peer peer, String why) {
    long now = nanoTime.getAsLong();
    long uid = Peer.uidOf(peer);
    Line line = lines.get(uid);
    if (line == null) {
      dropStale(now);
      if (lines.size() < MAX_UIDS) {
        line = new Line();
        lines.put(uid, line);
      } else {
        line = overflow;
      }
    }
    if (line.logged && now - line.at < intervalNanos) {
      line.unlogged++;
      return null;
    }
    if (line != overflow) {
      lines.remove(uid);
      lines.put(uid, line); // the newest line, at the tail
    }
    String text =
        "refused a socket connection from "
            + (peer == null ? "a peer whose credentials could not be read" : peer.describe())
            + ": "
            + why
            + (line.unlogged == 0
                ? ""
                : " ("
                    + line.unlogged
                    + (line == overflow ? " refusals of other uids" : " more refusals")
                    + " not logged in the last minute)");
    line.logged = true;
    line.at = now;
    line.unlogged = 0;
    LOG.warn(text);
    return text;
  }

  private void dropStale(long now) {
    Iterator<Line> at = lines.values().iterator();
    while (at.hasNext() && now - at.next().at >= intervalNanos) {
      at.remove();
    }
  }

  synchronized int remembered() {
    return lines.size();
  }
}
