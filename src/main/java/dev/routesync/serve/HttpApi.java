package dev.routesync.serve;

import com.google.protobuf.MessageOrBuilder;
import dev.routesync.api.ApiJson;
import dev.routesync.drift.DriftView;
import dev.routesync.sidecars.Sidecars;
import dev.routesync.table.Freshness;
import dev.routesync.table.FreshnessView;
import dev.routesync.table.InvalidNameException;
import dev.routesync.table.KubernetesNames;
import dev.routesync.table.RoutingTable;
import dev.routesync.table.ServiceEndpoints;
import dev.routesync.table.ServiceKey;
import dev.routesync.table.TableTrust;
import dev.routesync.table.TableView;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.Collection;
import java.util.Optional;

/**
 * The read API for people and scripts, under {@code /v1/}. Every answer, errors included, is JSON.
 * Handlers read one immutable table snapshot and never block. Until the table is trusted, every
 * answer from it is a 503 ("not synced yet"): an empty table then means "don't know". {@code GET
 * /v1/status} answers at any time, so a client can learn why.
 *
 * <p>Answers are the gRPC API's own messages ({@link ProtoMapping}) printed by {@link ApiJson}, the
 * proto3 JSON mapping: the same documents as {@code routesync get ... -o json}, and no second
 * mapping to drift from the first. Only the error body ({@link Errors}) is not a message, and the
 * single-service answer is its {@code ServiceEndpoints} with the table's {@code stale} and {@code
 * synced_at} beside its fields ({@link ApiJson#compactService}).
 */
public final class HttpApi {

  private final TableView table;
  private final TableTrust trust;
  private final FreshnessView freshness;
  private final DriftRoute drift = new DriftRoute();
  private final ClientsRoute clients = new ClientsRoute();

  /** For a table no watch feeds: stale only while {@code trust} is below SYNCED. */
  public HttpApi(TableView table, TableTrust trust) {
    this(table, trust, Freshness.unwatched(trust));
  }

  /**
   * @param freshness whether the table is stale, and why; its trust must be {@code trust}
   */
  public HttpApi(TableView table, TableTrust trust, FreshnessView freshness) {
    this.table = table;
    this.trust = trust;
    this.freshness = freshness;
  }

  public Router router(Vertx vertx) {
    Router router = Router.router(vertx);
    // First, before any route decodes a path or query parameter: a malformed escape there makes
    // Vert.x throw, which would surface as a 500.
    router.route().handler(HttpApi::rejectMalformedEscapes);
    router.get("/v1/services").handler(this::listServices);
    router.get("/v1/services/:namespace/:name").handler(this::getService);
    router.get("/v1/status").handler(this::status);
    drift.install(router);
    clients.install(router);
    Errors.install(router);
    return router;
  }

  /** Serves {@code view} at {@code GET /v1/drift} (before that: {@code "detector":"off"}). */
  public HttpApi serveDrift(DriftView view) {
    drift.serve(view);
    return this;
  }

  /**
   * Serves {@code registry}'s streams and latency at {@code GET /v1/clients} and {@code
   * /v1/latency}.
   */
  HttpApi serveClients(Sidecars registry) {
    clients.serve(registry);
    return this;
  }

  Sidecars sidecars() {
    return clients.sidecars();
  }

  private void listServices(RoutingContext ctx) {
    String namespace = ctx.request().getParam("namespace");
    boolean all = namespace == null || namespace.isEmpty();
    if (!all) {
      try {
        KubernetesNames.requireNamespace(namespace);
      } catch (InvalidNameException e) {
        Errors.send(ctx, 400, e.getMessage());
        return;
      }
    }
    if (notServable(ctx)) {
      return;
    }
    RoutingTable snapshot = table.current();
    Collection<ServiceEndpoints> services =
        all ? snapshot.services() : snapshot.servicesIn(namespace);
    sendJson(ctx, 200, ProtoMapping.list(snapshot.version(), services, freshness));
  }

  private void status(RoutingContext ctx) {
    send(ctx, 200, statusDocument());
  }

  /** The body of {@code GET /v1/status} (the debug bundle's {@code status.json}). */
  String statusDocument() {
    return ApiJson.compact(ProtoMapping.status(table.current(), freshness));
  }

  /**
   * The body of {@code GET /v1/services}, every namespace: its 503 error body while the table is
   * not servable (the debug bundle's {@code services.json}).
   */
  String servicesDocument() {
    if (!trust.servable()) {
      return Errors.body(503, trust.whyNotServable()).encode();
    }
    RoutingTable snapshot = table.current();
    return ApiJson.compact(ProtoMapping.list(snapshot.version(), snapshot.services(), freshness));
  }

  /** The body of {@code GET /v1/drift}. */
  String driftDocument() {
    return drift.document();
  }

  /** The body of {@code GET /v1/clients}, at its default limit. */
  String clientsDocument() {
    return clients.document();
  }

  private void getService(RoutingContext ctx) {
    ServiceKey key;
    try {
      key = ServiceKey.of(ctx.pathParam("namespace"), ctx.pathParam("name"));
    } catch (InvalidNameException e) {
      Errors.send(ctx, 400, e.getMessage());
      return;
    }
    if (notServable(ctx)) {
      return;
    }
    Optional<ServiceEndpoints> service = table.current().get(key);
    if (service.isEmpty() || service.get().traffic().isExternalName()) {
      Errors.send(ctx, 404, NotFound.message(key, service));
      return;
    }
    send(
        ctx,
        200,
        ApiJson.compactService(
            ProtoMapping.service(service.get()),
            freshness.stale(),
            freshness.syncedAt().map(ProtoMapping::timestamp)));
  }

  private static void rejectMalformedEscapes(RoutingContext ctx) {
    if (wellFormedEscapes(ctx.request().uri())) {
      ctx.next();
    } else {
      Errors.send(
          ctx,
          400,
          "malformed percent-encoding in the request URI (% must be followed by"
              + " two hex digits)");
    }
  }

  /** Whether every {@code %} in {@code uri} starts a {@code %XX} escape. */
  static boolean wellFormedEscapes(String uri) {
    for (int i = uri.indexOf('%'); i >= 0; i = uri.indexOf('%', i + 1)) {
      if (i + 2 >= uri.length() || !isHex(uri.charAt(i + 1)) || !isHex(uri.charAt(i + 2))) {
        return false;
      }
    }
    return true;
  }

  // ASCII only: Character.digit would also take other scripts' digits.
  private static boolean isHex(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  }

  private boolean notServable(RoutingContext ctx) {
    if (trust.servable()) {
      return false;
    }
    Errors.send(ctx, 503, trust.whyNotServable());
    return true;
  }

  private static void sendJson(RoutingContext ctx, int status, MessageOrBuilder message) {
    send(ctx, status, ApiJson.compact(message));
  }

  static void sendJson(RoutingContext ctx, int status, JsonObject body) {
    send(ctx, status, body.encode());
  }

  private static void send(RoutingContext ctx, int status, String json) {
    ctx.response().setStatusCode(status).putHeader("content-type", "application/json").end(json);
  }
}
