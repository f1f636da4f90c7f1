package dev.routesync.serve;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.micrometer.PrometheusScrapingHandler;
import java.util.List;
import java.util.function.Supplier;

/**
 * The admin listener on TCP: kubelet probes (kubelet cannot probe a Unix socket) and Prometheus.
 * Liveness never depends on the API server: an agent that cannot reach it keeps serving its last
 * table and must not be restarted for it.
 *
 * <p>It serves {@code /healthz}, {@code /readyz} and {@code /metrics}, nothing else: it listens on
 * the pod's address, so anything that reaches the pod reaches it. Debug data such as the drift
 * report stays on the socket. Its connections are shared out per source address, and a new one
 * takes the place of the one idle the longest when needed ({@link SourceShare}), so holding
 * connections open cannot shut the probes out.
 */
public final class AdminServer {

  /** Liveness verdict supplied by the agent. */
  public interface Liveness {
    Future<LivenessVerdict> check();
  }

  private final Vertx vertx;
  private final String host;
  private final int port;
  private final Readiness readiness;
  private final Liveness liveness;
  private final Supplier<PrometheusMeterRegistry> registry;
  private final ConnectionGuards guards;
  private final ConnectionGuard guard;
  private HttpServer server;

  /** Without connection limits: for tests that build their own Vert.x. */
  public AdminServer(
      Vertx vertx,
      String host,
      int port,
      Readiness readiness,
      Liveness liveness,
      Supplier<PrometheusMeterRegistry> registry) {
    this(vertx, host, port, readiness, liveness, registry, ConnectionGuards.none(), null, null);
  }

  /**
   * With {@code limits} enforced by {@code guards}, which must be the ones {@code vertx} was built
   * with. The admin listener has its own cap, so a flood of the socket cannot starve the probes.
   */
  public AdminServer(
      Vertx vertx,
      String host,
      int port,
      Readiness readiness,
      Liveness liveness,
      Supplier<PrometheusMeterRegistry> registry,
      ConnectionGuards guards,
      ConnectionLimits limits,
      ServeObserver observer) {
    this.vertx = vertx;
    this.host = host;
    this.port = port;
    this.readiness = readiness;
    this.liveness = liveness;
    this.registry = registry;
    this.guards = guards;
    this.guard = guards.enabled() ? ConnectionGuard.admin(limits, observer) : null;
  }

  public Future<Integer> listen() {
    Router router = Router.router(vertx);
    router.get("/healthz").handler(this::healthz);
    router.get("/readyz").handler(this::readyz);
    router.get("/metrics").handler(PrometheusScrapingHandler.create(registry.get()));
    Errors.install(router);
    server =
        vertx
            .createHttpServer(http11Only())
            .requestHandler(router)
            .invalidRequestHandler(Errors::invalidRequest);
    return guards.listenTcp(server, host, port, guard);
  }

  /**
   * kubelet probes and Prometheus speak HTTP/1.1; nothing here needs HTTP/2. Without h2c an {@code
   * Upgrade: h2c} request is answered as plain HTTP/1.1, which also keeps the JDK client clear of
   * its upgrade defect (it can lose the bytes that arrive with the 101 past its first 16 KB read,
   * and then waits for the body forever: seen on /metrics).
   */
  static HttpServerOptions http11Only() {
    return new HttpServerOptions()
        .setHttp2ClearTextEnabled(false)
        .setUseAlpn(false)
        .setAlpnVersions(List.of(HttpVersion.HTTP_1_1));
  }

  public int actualPort() {
    return server == null ? -1 : server.actualPort();
  }

  private void healthz(RoutingContext ctx) {
    liveness
        .check()
        .onComplete(
            verdict -> {
              LivenessVerdict answer =
                  verdict.succeeded()
                      ? verdict.result()
                      : LivenessVerdict.notAlive(verdict.cause().toString());
              if (answer.alive()) {
                HttpApi.sendJson(ctx, 200, new JsonObject().put("status", "ok"));
              } else {
                Errors.send(ctx, 503, answer.reason());
              }
            });
  }

  /**
   * 200 {@code {"status":"ready"}} or 503 with the reason; either way with {@code warnings} when
   * there are any (the watches held back while the table is served). Query parameters such as
   * {@code ?verbose} are accepted and change nothing: the answer is always the whole one.
   */
  private void readyz(RoutingContext ctx) {
    List<String> warnings = readiness.warnings();
    if (readiness.isReady()) {
      JsonObject body = new JsonObject().put("status", "ready");
      if (!warnings.isEmpty()) {
        body.put("warnings", new JsonArray(warnings));
      }
      HttpApi.sendJson(ctx, 200, body);
    } else {
      Errors.send(ctx, 503, readiness.reason());
    }
  }

  public Future<Void> close() {
    return server == null ? Future.succeededFuture() : server.close();
  }
}
