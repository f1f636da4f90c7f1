package dev.routesync.serve;

import dev.routesync.table.KubernetesNames;
import dev.routesync.table.RoutingTable;
import dev.routesync.table.ServiceEndpoints;
import dev.routesync.table.ServiceKey;
import dev.routesync.table.TableView;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.Collection;
import java.util.Optional;

/**
 * The read API for people and scripts, under {@code /v1/}. Every answer, errors included, is JSON.
 * Handlers read one immutable table snapshot and never block.
 */
public final class HttpApi {

  private final TableView table;

  public HttpApi(TableView table) {
    this.table = table;
  }

  public Router router(Vertx vertx) {
    Router router = Router.router(vertx);
    router.get("/v1/services").handler(this::listServices);
    router.get("/v1/services/:namespace/:name").handler(this::getService);
    Errors.install(router);
    return router;
  }

  private void listServices(RoutingContext ctx) {
    String namespace = ctx.request().getParam("namespace");
    RoutingTable snapshot = table.current();
    Collection<ServiceEndpoints> services;
    if (namespace == null || namespace.isEmpty()) {
      services = snapshot.services();
    } else if (KubernetesNames.isDns1123Label(namespace)) {
      services = snapshot.servicesIn(namespace);
    } else {
      Errors.send(ctx, 400, "namespace '" + namespace + "' is not a valid DNS-1123 label");
      return;
    }
    sendJson(ctx, 200, TableJson.serviceList(snapshot.version(), services));
  }

  private void getService(RoutingContext ctx) {
    String namespace = ctx.pathParam("namespace");
    String name = ctx.pathParam("name");
    if (!KubernetesNames.isDns1123Label(namespace) || !KubernetesNames.isDns1123Label(name)) {
      Errors.send(ctx, 400, "'" + namespace + "/" + name + "' is not a valid namespace/name");
      return;
    }
    Optional<ServiceEndpoints> service = table.current().get(new ServiceKey(namespace, name));
    if (service.isEmpty()) {
      Errors.send(ctx, 404, "service " + namespace + "/" + name + " not found");
      return;
    }
    sendJson(ctx, 200, TableJson.service(service.get()));
  }

  static void sendJson(RoutingContext ctx, int status, JsonObject body) {
    ctx.response()
        .setStatusCode(status)
        .putHeader("content-type", "application/json")
        .end(body.encode());
  }
}
