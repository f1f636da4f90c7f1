package dev.routesync.client;

import com.google.protobuf.Timestamp;
import dev.routesync.api.v1.StatusResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The line {@code get services} and {@code get endpoints} print above their table while the agent's
 * table is stale, and nothing while it is fresh:
 *
 * <pre>
 * # stale: not confirmed by the Kubernetes API server since 2026-12-01T14:02:03Z (disconnected for 2m13s)
 * # stale: not yet confirmed by the Kubernetes API server (restored from the state file)
 * </pre>
 *
 * <p>A stale table is still what sidecars get: the line says how old it may be, not that it is
 * wrong. The reason comes from Status; without it (an agent older than Status) the line has none.
 */
final class StaleHeader {

  private StaleHeader() {}

  /**
   * @param syncedAt when the agent last heard from the API server, if ever
   * @param status the agent's Status answer, if it gave one
   * @return the line with its newline, or empty when the table is fresh
   */
  static String of(boolean stale, Optional<Timestamp> syncedAt, Optional<StatusResponse> status) {
    if (!stale) {
      return "";
    }
    StringBuilder line = new StringBuilder("# stale: ");
    if (syncedAt.isPresent()) {
      Instant at =
          Instant.ofEpochSecond(syncedAt.get().getSeconds()).truncatedTo(ChronoUnit.SECONDS);
      line.append("not confirmed by the Kubernetes API server since ").append(at);
    } else {
      line.append("not yet confirmed by the Kubernetes API server");
    }
    List<String> reasons = new ArrayList<>();
    status.ifPresent(
        answer -> {
          if (answer.getTrust() == StatusResponse.Trust.RESTORED) {
            reasons.add("restored from the state file");
          }
          Duration down =
              Duration.ofSeconds(
                  answer.getDisconnectedFor().getSeconds(), answer.getDisconnectedFor().getNanos());
          if (!down.isZero()) {
            reasons.add("disconnected for " + text(down));
          }
        });
    if (!reasons.isEmpty()) {
      line.append(" (").append(String.join(", ", reasons)).append(')');
    }
    return line.append('\n').toString();
  }

  /**
   * {@code 0s}, {@code 850ms}, {@code 12s}, {@code 2m13s}, {@code 1h2m}: whole units, as a person
   * reads them.
   */
  static String text(Duration duration) {
    if (duration.isZero()) {
      return "0s";
    }
    if (duration.compareTo(Duration.ofSeconds(1)) < 0) {
      return duration.toMillis() + "ms";
    }
    long seconds = duration.getSeconds();
    long hours = seconds / 3600;
    long minutes = seconds % 3600 / 60;
    long rest = seconds % 60;
    if (hours > 0) {
      return hours + "h" + minutes + "m";
    }
    return minutes > 0 ? minutes + "m" + rest + "s" : rest + "s";
  }
}
