package dev.routesync.client;

import com.google.protobuf.Timestamp;
import dev.routesync.api.v1.StatusResponse;
import java.time.Duration;
import java.time.Instant;

/**
 * {@code routesync get status} in text: one {@code key: value} line per field, in the order an
 * operator asks: can it be trusted, how old is it, is the agent connected, what does it hold.
 *
 * <pre>
 * trust:             SYNCED
 * stale:             false
 * synced at:         2026-12-01T14:02:03.250Z
 * connected:         true
 * disconnected for:  0s
 * version:           1795970782073004
 * services:          12
 * endpoints:         40
 * built at:          2026-12-01T14:02:03.100Z
 * </pre>
 */
final class StatusText {

  private StatusText() {}

  static String render(StatusResponse status) {
    StringBuilder text = new StringBuilder();
    line(text, "trust", status.getTrust().name());
    line(text, "stale", Boolean.toString(status.getStale()));
    line(text, "synced at", status.hasSyncedAt() ? instant(status.getSyncedAt()) : "<never>");
    line(text, "connected", Boolean.toString(status.getConnected()));
    line(
        text,
        "disconnected for",
        StaleHeader.text(
            Duration.ofSeconds(
                status.getDisconnectedFor().getSeconds(), status.getDisconnectedFor().getNanos())));
    line(text, "version", Long.toUnsignedString(status.getVersion()));
    line(text, "services", Integer.toUnsignedString(status.getServiceCount()));
    line(text, "endpoints", Integer.toUnsignedString(status.getEndpointCount()));
    line(text, "built at", status.hasBuiltAt() ? instant(status.getBuiltAt()) : "<none>");
    return text.toString();
  }

  private static void line(StringBuilder text, String key, String value) {
    text.append(String.format("%-18s %s", key + ":", value)).append('\n');
  }

  private static String instant(Timestamp at) {
    return Instant.ofEpochSecond(at.getSeconds(), at.getNanos()).toString();
  }
}
