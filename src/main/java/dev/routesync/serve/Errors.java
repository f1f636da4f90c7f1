package dev.routesync.serve;

import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * JSON error bodies for every failure a router can produce, including unknown paths, and for the
 * requests Vert.x rejects before routing.
 */
final class Errors {

  // Vert.x's defaults (HttpServerOptions), which every listener keeps.
  private static final int MAX_INITIAL_LINE = HttpServerOptions.DEFAULT_MAX_INITIAL_LINE_LENGTH;
  private static final int MAX_HEADERS = HttpServerOptions.DEFAULT_MAX_HEADER_SIZE;

  private Errors() {}

  static void install(Router router) {
    router.errorHandler(404, ctx -> send(ctx, 404, "no route for " + ctx.request().path()));
    router.errorHandler(
        405, ctx -> send(ctx, 405, "method " + ctx.request().method() + " not allowed"));
    router.errorHandler(500, ctx -> send(ctx, 500, "internal error"));
    // vertx-web fails an HTTP/1.x request with no Host (or one that names no host: the socket
    // rewrites those, TCP does not) with 400 before any route, and without a handler here it
    // answers in plain text and logs each one at ERROR: a log line per bad request.
    router.errorHandler(
        400, ctx -> send(ctx, 400, "bad request: HTTP/1.x needs a Host header naming a host"));
  }

  /**
   * For requests Vert.x rejects before any router (request line or headers over the limits,
   * malformed HTTP/1): the same statuses as Vert.x's own handler, with a JSON body, then the
   * connection closes. Install with {@code HttpServer.invalidRequestHandler}.
   */
  static void invalidRequest(HttpServerRequest request) {
    Throwable cause = request.decoderResult().cause();
    int status;
    String message;
    if (cause instanceof TooLongHttpLineException) {
      status = 414;
      message = "request line longer than " + MAX_INITIAL_LINE + " bytes";
    } else if (cause instanceof TooLongHttpHeaderException) {
      status = 431;
      message = "request headers larger than " + MAX_HEADERS + " bytes";
    } else {
      status = 400;
      message = "malformed HTTP request";
    }
    request
        .response()
        .setStatusCode(status)
        .putHeader("content-type", "application/json")
        .putHeader("connection", "close")
        .end(body(status, message).encode())
        .onComplete(done -> request.connection().close());
  }

  static void send(RoutingContext ctx, int status, String message) {
    if (!ctx.response().ended()) {
      HttpApi.sendJson(ctx, status, body(status, message));
    }
  }

  /**
   * The error body, {@code {"status": 404, "error": "..."}}: the one JSON shape that is not an API
   * message (answers are {@code routesync.v1} messages printed by {@link
   * dev.routesync.api.ApiJson}).
   */
  static JsonObject body(int status, String message) {
    return new JsonObject().put("status", status).put("error", message);
  }
}
