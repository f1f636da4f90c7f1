package dev.routesync.serve;

import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/** JSON error bodies for every failure a router can produce, including unknown paths. */
final class Errors {

  private Errors() {}

  static void install(Router router) {
    router.errorHandler(404, ctx -> send(ctx, 404, "no route for " + ctx.request().path()));
    router.errorHandler(
        405, ctx -> send(ctx, 405, "method " + ctx.request().method() + " not allowed"));
    router.errorHandler(500, ctx -> send(ctx, 500, "internal error"));
  }

  static void send(RoutingContext ctx, int status, String message) {
    if (!ctx.response().ended()) {
      HttpApi.sendJson(ctx, status, TableJson.error(status, message));
    }
  }
}
