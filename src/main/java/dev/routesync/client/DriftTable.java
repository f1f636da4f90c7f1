package dev.routesync.client;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;

/**
 * {@code routesync get drift}: one row per drifting pod and Service port, kubectl style, with the
 * drift's age.
 */
public final class DriftTable {

  private DriftTable() {}

  /** The table of {@code GET /v1/drift}'s body, or an empty string when it lists no drift. */
  public static String render(JsonObject body, Instant now) {
    TableFormat table = new TableFormat("NAMESPACE", "SERVICE", "PORT", "POD", "REASON", "AGE");
    JsonArray drift = body.getJsonArray("drift", new JsonArray());
    for (int i = 0; i < drift.size(); i++) {
      JsonObject entry = drift.getJsonObject(i);
      table.row(
          entry.getString("namespace", ""),
          entry.getString("service", ""),
          entry.getString("port", ""),
          entry.getString("pod", ""),
          entry.getString("reason", ""),
          age(entry.getString("since", ""), now));
    }
    return table.isEmpty() ? "" : table.render();
  }

  /**
   * kubectl's AGE: {@code 45s}, {@code 3m20s}, {@code 15m}, {@code 5h10m}, {@code 30h}, {@code 3d}.
   */
  static String age(String since, Instant now) {
    Duration age;
    try {
      age = Duration.between(Instant.parse(since), now);
    } catch (DateTimeParseException e) {
      return "";
    }
    long seconds = Math.max(0, age.toSeconds());
    if (seconds < 120) {
      return seconds + "s";
    }
    long minutes = seconds / 60;
    if (minutes < 10) {
      return minutes + "m" + (seconds % 60 == 0 ? "" : seconds % 60 + "s");
    }
    if (minutes < 180) {
      return minutes + "m";
    }
    long hours = minutes / 60;
    if (hours < 8) {
      return hours + "h" + (minutes % 60 == 0 ? "" : minutes % 60 + "m");
    }
    if (hours < 48) {
      return hours + "h";
    }
    long days = hours / 24;
    if (days < 8) {
      return days + "d" + (hours % 24 == 0 ? "" : hours % 24 + "h");
    }
    return days + "d";
  }
}
