package dev.routesync.client;

import dev.routesync.api.v1.ServiceEndpoints;
import dev.routesync.api.v1.ServiceRef;
import dev.routesync.api.v1.WatchEvent;
import java.util.Optional;

/**
 * {@code routesync watch} in text: a line per event, then a line per Service it touches.
 *
 * <pre>
 * v42 reset services=3
 *   ~ shop/cart endpoints=3 ports=http=3/3
 * v43 update upserted=1 removed=1
 *   ~ shop/cart endpoints=2 ports=http=0/2
 *   - shop/old
 * </pre>
 *
 * <p>{@code ports=} is {@code get services}' PORTS column ({@link ServiceTable#ports}), left out
 * for a Service without ports: {@code endpoints=8} alone would read healthy during seed 002's
 * incident.
 *
 * <p>When the agent's table turns stale, or fresh again, a line says so before the event's lines
 * ({@link #staleness}); such an event often carries nothing else (see the proto's Watch).
 */
public final class WatchEventText {

  private WatchEventText() {}

  /**
   * The line to print before {@code event} when it changes what the subscriber was told about
   * staleness ({@code wasStale}, false before the first event), or an empty string.
   */
  public static String staleness(boolean wasStale, WatchEvent event) {
    if (event.getStale() == wasStale) {
      return "";
    }
    return event.getStale()
        ? StaleHeader.of(
            true,
            event.hasSyncedAt() ? Optional.of(event.getSyncedAt()) : Optional.empty(),
            Optional.empty())
        : "# fresh: confirmed by the Kubernetes API server again\n";
  }

  /** The event's lines, each ending in a newline. */
  public static String render(WatchEvent event) {
    StringBuilder text = new StringBuilder();
    text.append('v').append(Long.toUnsignedString(event.getVersion()));
    if (event.getReset()) {
      text.append(" reset services=").append(event.getUpsertedCount());
    } else {
      text.append(" update upserted=")
          .append(event.getUpsertedCount())
          .append(" removed=")
          .append(event.getRemovedCount());
    }
    text.append('\n');
    for (ServiceEndpoints service : event.getUpsertedList()) {
      text.append("  ~ ")
          .append(service.getNamespace())
          .append('/')
          .append(service.getName())
          .append(" endpoints=")
          .append(service.getEndpointsCount());
      String ports = ServiceTable.ports(service);
      if (!ports.isEmpty()) {
        text.append(" ports=").append(ports);
      }
      text.append('\n');
    }
    for (ServiceRef removed : event.getRemovedList()) {
      text.append("  - ")
          .append(removed.getNamespace())
          .append('/')
          .append(removed.getName())
          .append('\n');
    }
    return text.toString();
  }
}
