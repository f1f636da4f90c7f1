package dev.routesync.serve;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.micrometer.PrometheusScrapingHandler;
import java.util.function.Supplier;

/**
 * The admin listener on TCP: kubelet probes (kubelet cannot probe a Unix socket) and Prometheus.
 * Liveness never depends on the API server: an agent that cannot reach it keeps serving its last
 * table and must not be restarted for it.
 */
public final class AdminServer {

  /** Liveness verdict supplied by the agent: empty when alive, otherwise why not. */
  public interface Liveness {
    Future<String> check();
  }

  private final Vertx vertx;
  private final String host;
  private final int port;
  private final Readiness readiness;
  private final Liveness liveness;
  private final Supplier<PrometheusMeterRegistry> registry;
  private HttpServer server;

  public AdminServer(
      Vertx vertx,
      String host,
      int port,
      Readiness readiness,
      Liveness liveness,
      Supplier<PrometheusMeterRegistry> registry) {
    this.vertx = vertx;
    this.host = host;
    this.port = port;
    this.readiness = readiness;
    this.liveness = liveness;
    this.registry = registry;
  }

  public Future<Integer> listen() {
    Router router = Router.router(vertx);
    router.get("/healthz").handler(this::healthz);
    router.get("/readyz").handler(this::readyz);
    router.get("/metrics").handler(PrometheusScrapingHandler.create(registry.get()));
    Errors.install(router);
    server = vertx.createHttpServer().requestHandler(router);
    return server.listen(port, host).map(HttpServer::actualPort);
  }

  public int actualPort() {
    return server == null ? -1 : server.actualPort();
  }

  private void healthz(RoutingContext ctx) {
    liveness
        .check()
        .onComplete(
            verdict -> {
              String problem = verdict.succeeded() ? verdict.result() : verdict.cause().toString();
              if (problem.isEmpty()) {
                HttpApi.sendJson(ctx, 200, new JsonObject().put("status", "ok"));
              } else {
                Errors.send(ctx, 503, problem);
              }
            });
  }

  private void readyz(RoutingContext ctx) {
    if (readiness.isReady()) {
      HttpApi.sendJson(ctx, 200, new JsonObject().put("status", "ready"));
    } else {
      Errors.send(ctx, 503, readiness.reason());
    }
  }

  public Future<Void> close() {
    return server == null ? Future.succeededFuture() : server.close();
  }
}
