package dev.routesync.serve;

import dev.routesync.logs.LogLevels;
import dev.routesync.logs.LogLine;
import dev.routesync.logs.RecentLines;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * The debug listener, on loopback only ({@link dev.routesync.config.DebugListener}): what a person
 * looks at and changes during an incident, reached with {@code kubectl port-forward}.
 *
 * <ul>
 *   <li>{@code GET /status}: one self-contained HTML page (no external asset; its script and style
 *       are inline, and its Content-Security-Policy forbids any other origin) that refreshes itself
 *       from the JSON below.
 *   <li>The socket's read API ({@code /v1/status}, {@code /v1/services}, {@code /v1/drift}, {@code
 *       /v1/clients}, {@code /v1/latency}), the same documents.
 *   <li>{@code GET /debug/logs}: the last WARN-or-above lines and the last lines of any level
 *       ({@link RecentLines}).
 *   <li>{@code GET /debug/meters}: the agent's own counters and gauges ({@code routesync.*}), the
 *       watches' restarts, relists and bookmarks among them.
 *   <li>{@code GET /debug/bundle}: a {@code .tar.gz} to attach to a bug report ({@link
 *       DebugBundle}), built on a worker thread, one at a time (a second request meanwhile gets
 *       429).
 *   <li>{@code GET /logging} lists the loggers' levels; {@code POST /logging?level=debug} sets the
 *       whole process's, {@code POST /logging?dev.routesync.kube=debug} one logger's (Envoy's admin
 *       convention).
 * </ul>
 *
 * <p>Before any of these, {@link DebugRequestGate} refuses a request whose {@code Host} is not
 * loopback, and a change ({@code POST}) from another origin: a browser on the operator's machine
 * can reach the port-forward too.
 */
public final class DebugServer {

  static final String STATUS_PAGE = "/dev/routesync/serve/status.html";
  // Nothing but this origin: the page works offline and cannot be made to load anything else.
  private static final String CONTENT_SECURITY_POLICY =
      "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline';"
          + " connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'";

  private final Vertx vertx;
  private final String host;
  private final int port;
  private final HttpApi api;
  private final Supplier<? extends MeterRegistry> registry;
  private final RecentLines recent;
  private final Optional<LogLevels> levels;
  private final ConnectionGuards guards;
  private final ConnectionGuard guard;
  private final DebugRequestGate gate;
  private final Buffer page;
  private final AtomicBoolean building = new AtomicBoolean();
  private volatile Supplier<JsonObject> configuration =
      () -> new JsonObject().put("agent", null).put("kubeconfig", null);
  private volatile BundleLimits bundleLimits = BundleLimits.DEFAULT;
  private volatile Runnable beforeBundle = () -> {};
  private HttpServer server;

  /**
   * @param api the socket's read API, whose routes it serves too
   * @param guards the Vert.x instance's connection guards (or {@link ConnectionGuards#none()})
   * @param observer counts the connections and the refused requests
   */
  public DebugServer(
      Vertx vertx,
      String host,
      int port,
      HttpApi api,
      Supplier<? extends MeterRegistry> registry,
      RecentLines recent,
      Optional<LogLevels> levels,
      ConnectionGuards guards,
      ConnectionLimits limits,
      ServeObserver observer) {
    this.vertx = vertx;
    this.host = host;
    this.port = port;
    this.api = api;
    this.registry = registry;
    this.recent = recent;
    this.levels = levels;
    this.guards = guards;
    this.guard = guards.enabled() ? ConnectionGuard.debug(limits, observer) : null;
    this.gate = new DebugRequestGate(observer, new DebugRefusalLog(System::nanoTime));
    this.page = Buffer.buffer(resource(STATUS_PAGE));
  }

  public Future<Integer> listen() {
    Router router = api.router(vertx);
    // Before the read API's routes, which api.router added first.
    router.route().order(-1).handler(gate);
    router.get("/").handler(ctx -> ctx.redirect("/status"));
    router.get("/status").handler(this::statusPage);
    router.get("/debug/logs").handler(this::logs);
    router.get("/debug/meters").handler(this::meters);
    router.get("/debug/bundle").handler(this::bundle);
    router.get("/logging").handler(this::listLevels);
    router.post("/logging").handler(this::setLevels);
    server =
        vertx
            .createHttpServer(AdminServer.http11Only())
            .requestHandler(router)
            .invalidRequestHandler(Errors::invalidRequest);
    return guards.listenTcp(server, host, port, guard);
  }

  /**
   * What the debug bundle's {@code config.json} says: {@code agent}, every component of the
   * effective configuration, and {@code kubeconfig}, the non-secret facts of the cluster connection
   * (server, namespace, which kind of credential). Both are redacted again when written ({@link
   * Redaction}).
   */
  public DebugServer describeConfiguration(Record agent, Map<String, String> kubeconfig) {
    JsonObject document =
        new JsonObject()
            .put("agent", RecordJson.of(agent))
            .put("kubeconfig", new JsonObject(new java.util.TreeMap<String, Object>(kubeconfig)));
    this.configuration = document::copy;
    return this;
  }

  /** Tests: smaller bounds, to see an entry cut. */
  DebugServer bundleLimits(BundleLimits limits) {
    this.bundleLimits = limits;
    return this;
  }

  /** Tests: runs on the worker before each bundle is built, to hold one in progress. */
  DebugServer beforeBundle(Runnable hook) {
    this.beforeBundle = hook;
    return this;
  }

  public int actualPort() {
    return server == null ? -1 : server.actualPort();
  }

  public Future<Void> close() {
    return server == null ? Future.succeededFuture() : server.close();
  }

  private void statusPage(RoutingContext ctx) {
    ctx.response()
        .putHeader("content-type", "text/html; charset=utf-8")
        .putHeader("cache-control", "no-store")
        .putHeader("content-security-policy", CONTENT_SECURITY_POLICY)
        .putHeader("x-content-type-options", "nosniff")
        .end(page);
  }

  private void logs(RoutingContext ctx) {
    HttpApi.sendJson(
        ctx,
        200,
        new JsonObject()
            .put("problems", lines(recent.problems()))
            .put("lines", lines(recent.lines())));
  }

  private void meters(RoutingContext ctx) {
    JsonArray out = new JsonArray();
    for (Meter meter : registry.get().getMeters()) {
      String name = meter.getId().getName();
      if (!name.startsWith("routesync.")) {
        continue;
      }
      Double value = value(meter);
      if (value == null) {
        continue;
      }
      JsonObject tags = new JsonObject();
      for (Tag tag : meter.getId().getTagsAsIterable()) {
        tags.put(tag.getKey(), tag.getValue());
      }
      out.add(
          new JsonObject()
              .put("name", name)
              .put("tags", tags)
              .put("value", value.isNaN() || value.isInfinite() ? null : value));
    }
    HttpApi.sendJson(ctx, 200, new JsonObject().put("meters", out));
  }

  private static Double value(Meter meter) {
    if (meter instanceof Counter counter) {
      return counter.count();
    }
    if (meter instanceof FunctionCounter counter) {
      return counter.count();
    }
    if (meter instanceof Gauge gauge) {
      return gauge.value();
    }
    return null;
  }

  private void bundle(RoutingContext ctx) {
    // One at a time: each holds a whole archive in memory, up to the bundle's bounds.
    if (!building.compareAndSet(false, true)) {
      ctx.response().putHeader("retry-after", "5");
      Errors.send(ctx, 429, "a debug bundle is being built already; ask again when it is done");
      return;
    }
    DebugBundle bundle = new DebugBundle(api, registry, recent, configuration, bundleLimits);
    Runnable hook = beforeBundle;
    vertx
        .executeBlocking(
            () -> {
              hook.run();
              return bundle.build(Instant.now());
            },
            /* ordered= */ false)
        .onComplete(
            built -> {
              building.set(false);
              if (built.failed()) {
                Errors.send(ctx, 500, "the debug bundle could not be built: " + built.cause());
                return;
              }
              ctx.response()
                  .putHeader("content-type", "application/gzip")
                  .putHeader(
                      "content-disposition",
                      "attachment; filename=\"" + built.result().fileName() + "\"")
                  .putHeader("cache-control", "no-store")
                  .end(Buffer.buffer(built.result().gzip()));
            });
  }

  private void listLevels(RoutingContext ctx) {
    if (levels.isEmpty()) {
      Errors.send(ctx, 501, "log levels cannot be changed: logback is not the logging backend");
      return;
    }
    HttpApi.sendJson(ctx, 200, levelsJson(levels.get()));
  }

  private void setLevels(RoutingContext ctx) {
    if (levels.isEmpty()) {
      Errors.send(ctx, 501, "log levels cannot be changed: logback is not the logging backend");
      return;
    }
    var params = ctx.queryParams();
    if (params.isEmpty()) {
      Errors.send(
          ctx,
          400,
          "name a level: ?level=debug for every logger, ?dev.routesync.kube=debug for one");
      return;
    }
    // All or nothing: LogLevels checks every pair, and the bound on new loggers, first.
    List<Map.Entry<String, String>> pairs = new ArrayList<>();
    for (Map.Entry<String, String> pair : params.entries()) {
      pairs.add(Map.entry(logger(pair.getKey()), pair.getValue()));
    }
    LogLevels target = levels.get();
    try {
      target.set(pairs);
    } catch (IllegalArgumentException e) {
      Errors.send(ctx, 400, e.getMessage());
      return;
    }
    HttpApi.sendJson(ctx, 200, levelsJson(target));
  }

  // Envoy's convention: "level" is the whole process.
  private static String logger(String key) {
    return key.equals("level") ? LogLevels.ROOT : key;
  }

  private static JsonObject levelsJson(LogLevels levels) {
    JsonObject out = new JsonObject();
    levels.levels().forEach(out::put);
    return new JsonObject().put("levels", out);
  }

  private static JsonArray lines(List<LogLine> lines) {
    JsonArray out = new JsonArray();
    for (LogLine line : lines) {
      out.add(
          new JsonObject()
              .put("time", line.time().toString())
              .put("level", line.level())
              .put("logger", line.logger())
              .put("thread", line.thread())
              .put("message", line.message()));
    }
    return out;
  }

  private static byte[] resource(String name) {
    try (InputStream in = DebugServer.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + name);
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
