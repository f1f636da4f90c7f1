package dev.routesync.serve;

import io.vertx.core.json.JsonObject;

/**
 * The HTTP API's error body, {@code {"status": 404, "error": "..."}}. It is the one JSON shape that
 * is not an API message: answers are {@code routesync.v1} messages printed by {@link
 * dev.routesync.api.ApiJson} (see {@link HttpApi}).
 */
final class TableJson {

  private TableJson() {}

  static JsonObject error(int status, String message) {
    return new JsonObject().put("status", status).put("error", message);
  }
}
