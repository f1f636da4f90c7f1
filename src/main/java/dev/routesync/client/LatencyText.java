package dev.routesync.client;

import dev.routesync.api.v1.LatencyResponse;
import java.time.Duration;
import java.util.Locale;

/**
 * {@code routesync get latency} in text: the propagation latency's p50 and p99 on this node, and
 * the buffer a {@code preStop} hook needs for it.
 *
 * <pre>
 * propagation (trigger time to client ACK), since the agent started:
 * samples:   42
 * p50:       180ms
 * p99:       1.2s
 * </pre>
 */
final class LatencyText {

  private LatencyText() {}

  static String render(LatencyResponse latency) {
    StringBuilder text =
        new StringBuilder(
            "propagation (a change's trigger time to each client's ACK), since the agent started:\n");
    line(text, "samples", Long.toUnsignedString(latency.getCount()));
    if (latency.getCount() == 0) {
      text.append(
          "No sample yet: no client has acknowledged a change made since the agent started.\n");
      return text.toString();
    }
    line(text, "p50", seconds(ClientsTable.duration(latency.getP50())));
    line(
        text,
        "p99",
        (latency.getP99Overflowed() ? ">= " : "")
            + seconds(ClientsTable.duration(latency.getP99())));
    return text.toString();
  }

  private static void line(StringBuilder text, String key, String value) {
    text.append(String.format(Locale.ROOT, "%-10s %s", key + ":", value)).append('\n');
  }

  static String seconds(Duration duration) {
    long millis = duration.toMillis();
    return millis < 1000 ? millis + "ms" : String.format(Locale.ROOT, "%.1fs", millis / 1000.0);
  }
}
