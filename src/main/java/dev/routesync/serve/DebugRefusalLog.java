package dev.routesync.serve;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The warning for a request the debug listener refused ({@link DebugRequestGate}): one line per
 * {@link DebugRefusal} per {@link #INTERVAL} at most, saying how many went unlogged since, so that
 * a page retrying in a loop cannot flood the log ({@code routesync_debug_requests_refused_total}
 * counts every one). What the client sent is printed cut short and without control characters: it
 * is the client's text.
 *
 * <p>Threading: called on the listener's event loop; synchronized anyway (two fields a reason).
 */
final class DebugRefusalLog {

  static final Duration INTERVAL = Duration.ofMinutes(1);
  private static final int MAX_SHOWN = 100;
  private static final Logger LOG = LoggerFactory.getLogger(DebugRefusalLog.class);

  private final LongSupplier nanoTime;
  private final Map<DebugRefusal, Line> lines = new EnumMap<>(DebugRefusal.class);

  private static final class Line {
    long at;
    int unlogged;
  }

  DebugRefusalLog(LongSupplier nanoTime) {
    this.nanoTime = nanoTime;
  }

  /**
   * Logs the refusal of {@code request} (its method and path) for {@code why}, {@code sent} being
   * the header values that decided it, unless a line for {@code why} was logged within the
   * interval.
   *
   * @return the line logged, or null when it was left out
   */
  synchronized String refused(DebugRefusal why, String request, String sent) {
    long now = nanoTime.getAsLong();
    Line line = lines.get(why);
    if (line != null && now - line.at < INTERVAL.toNanos()) {
      line.unlogged++;
      return null;
    }
    int unlogged = line == null ? 0 : line.unlogged;
    if (line == null) {
      line = new Line();
      lines.put(why, line);
    }
    line.at = now;
    line.unlogged = 0;
    String text =
        "debug listener: refused "
            + printable(request)
            + ": "
            + (why == DebugRefusal.HOST
                ? "Host "
                    + printable(sent)
                    + " is not localhost, 127.0.0.0/8 or [::1] (a page whose name resolves to"
                    + " loopback, DNS rebinding?)"
                : "it would change the agent's state and came from another origin ("
                    + printable(sent)
                    + "; a page of another site in a browser beside a port-forward?)")
            + (unlogged == 0 ? "" : "; " + unlogged + " more not logged in the last minute")
            + ". Counted in routesync_debug_requests_refused_total; logged at most once a minute";
    LOG.warn(text);
    return text;
  }

  private static String printable(String text) {
    if (text == null) {
      return "(none)";
    }
    StringBuilder out = new StringBuilder(Math.min(text.length(), MAX_SHOWN) + 5);
    out.append('\'');
    for (int i = 0; i < text.length() && i < MAX_SHOWN; i++) {
      char c = text.charAt(i);
      out.append(c < 0x20 || c > 0x7e ? '?' : c);
    }
    out.append(text.length() > MAX_SHOWN ? "...'" : "'");
    return out.toString();
  }
}
