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
import io.vertx.core.json.JsonArray;
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
  // Large lists are written a chunk at a time: two at once, 1,024 more waiting (each holds its
  // request, nothing built), the rest told to retry.
  private final AnswerSlots largeAnswers = new AnswerSlots(2, 1_024);
  private Vertx vertx;

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
    this.vertx = vertx;
    Router router = Router.router(vertx);
    // First, before any route decodes a path or query parameter: a malformed escape there makes
    // Vert.x throw, which would surface as a 500.
    router.route().handler(HttpApi::rejectMalformedEscapes);
    router.get("/v1/services").handler(this::listServices);
    router.get("/v1/services/:namespace/:name").handler(this::getService);
    router.get("/v1/status").handler(this::status);
    router.get("/v1/summary").handler(this::summary);
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
    if (endpoints(services) <= SMALL_ANSWER_ENDPOINTS) {
      sendJson(ctx, 200, ProtoMapping.list(snapshot.version(), services, freshness));
    } else if (!ServicesAnswer.send(
        vertx, ctx, snapshot.version(), services, freshness, largeAnswers)) {
      ctx.response().putHeader("retry-after", "1");
      Errors.send(
          ctx,
          503,
          "too many large GET /v1/services answers in progress; retry, or ask for one namespace"
              + " (?namespace=) or one Service");
    }
  }

  /**
   * Up to this many endpoints (a few hundred KB of JSON) an answer is printed whole, at once;
   * beyond, it is streamed ({@link ServicesAnswer}).
   */
  static final int SMALL_ANSWER_ENDPOINTS = 2_000;

  private static long endpoints(Collection<ServiceEndpoints> services) {
    long count = 0;
    for (ServiceEndpoints service : services) {
      count += service.endpoints().size();
      if (count > SMALL_ANSWER_ENDPOINTS) {
        return count; // large: no need to count the rest
      }
    }
    return count;
  }

  /** The most rows {@code GET /v1/summary} lists (its {@code ?limit=} default and cap). */
  static final int SUMMARY_ROWS = 500;

  /**
   * {@code GET /v1/summary?limit=N}: the table's totals and, for the first {@code N} Services in
   * key order (at most {@link #SUMMARY_ROWS}), their endpoint counts and topology. What the status
   * page shows every 2 s, bounded whatever the table's size: not the endpoints themselves.
   */
  private void summary(RoutingContext ctx) {
    int limit = summaryLimit(ctx.request().getParam("limit"));
    if (limit < 0) {
      Errors.send(ctx, 400, "limit must be a whole number from 0 to " + SUMMARY_ROWS);
      return;
    }
    if (notServable(ctx)) {
      return;
    }
    RoutingTable snapshot = table.current();
    JsonArray rows = new JsonArray();
    for (ServiceEndpoints service : snapshot.services()) {
      if (rows.size() >= limit) {
        break;
      }
      rows.add(summaryRow(service));
    }
    JsonObject body =
        new JsonObject()
            .put("version", Long.toString(snapshot.version()))
            .put("stale", freshness.stale())
            .put("services_total", snapshot.serviceCount())
            .put("endpoints_total", snapshot.endpointCount())
            .put("services", rows);
    sendJson(ctx, 200, body);
  }

  /** {@code ?limit=}'s rows: the default when absent, -1 when not a number from 0 to the cap. */
  private static int summaryLimit(String asked) {
    if (asked == null) {
      return SUMMARY_ROWS;
    }
    try {
      int limit = Integer.parseInt(asked);
      return limit <= SUMMARY_ROWS ? Math.max(limit, -1) : -1;
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  private static JsonObject summaryRow(ServiceEndpoints service) {
    int ready = 0;
    int terminating = 0;
    for (var endpoint : service.endpoints()) {
      ready += endpoint.ready() ? 1 : 0;
      terminating += endpoint.terminating() ? 1 : 0;
    }
    return new JsonObject()
        .put("namespace", service.key().namespace())
        .put("name", service.key().name())
        .put("endpoints", service.endpoints().size())
        .put("ready", ready)
        .put("terminating", terminating)
        .put("topology", new JsonObject(ApiJson.compact(ProtoMapping.topology(service))))
        .put(
            "external_name",
            service.traffic().isExternalName() ? service.traffic().externalName() : "");
  }

  private void status(RoutingContext ctx) {
    send(ctx, 200, statusDocument());
  }

  /** The body of {@code GET /v1/status} (the debug bundle's {@code status.json}). */
  String statusDocument() {
    return ApiJson.compact(ProtoMapping.status(table.current(), freshness));
  }

  /** The most characters of Services the debug bundle's {@code services.json} holds. */
  static final int BUNDLE_SERVICES_CHARS = 4 * 1024 * 1024;

  /**
   * The body of {@code GET /v1/services}, every namespace: its 503 error body while the table is
   * not servable (the debug bundle's {@code services.json}). Held whole in memory, so cut after
   * about {@link #BUNDLE_SERVICES_CHARS} of Services: then it lists the first ones, in key order,
   * and says so in {@code truncated} and {@code services_total} (members a full answer lacks).
   */
  String servicesDocument() {
    if (!trust.servable()) {
      return Errors.body(503, trust.whyNotServable()).encode();
    }
    RoutingTable snapshot = table.current();
    ServicesJson json = ServicesJson.envelope(snapshot.version(), freshness);
    StringBuilder out = new StringBuilder(json.head());
    var services = snapshot.services().iterator();
    int written = ServicesJson.appendUntil(out, services, 0, BUNDLE_SERVICES_CHARS);
    if (!services.hasNext()) {
      return out.append(json.tail()).toString();
    }
    // "...],<rest of the envelope>}" becomes "...],<rest>,"truncated":true,"services_total":N}".
    String tail = json.tail();
    return out.append(tail, 0, tail.length() - 1)
        .append(",\"truncated\":true,\"services_total\":")
        .append(snapshot.serviceCount())
        .append(",\"services_listed\":")
        .append(written)
        .append('}')
        .toString();
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
