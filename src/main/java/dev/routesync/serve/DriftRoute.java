package dev.routesync.serve;

import dev.routesync.drift.DriftEntry;
import dev.routesync.drift.DriftSnapshot;
import dev.routesync.drift.DriftView;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.time.temporal.ChronoUnit;

/**
 * {@code GET /v1/drift}, on the socket only (never the admin port, which anyone reaching the pod
 * reaches): the drift detector's latest snapshot, read without locking. Always 200: the answer says
 * whether the detector runs ({@code "detector": "on"}, {@code "starting"} until its watches have
 * synced, or {@code "off"} with a {@code "reason"}), so an empty list is never mistaken for a clean
 * node. Not a {@code routesync.v1} message: the detector's report is not part of the gRPC contract
 * sidecars use.
 */
final class DriftRoute {

  static final String PATH = "/v1/drift";

  private volatile DriftView view = DriftView.off("not wired");

  void serve(DriftView newView) {
    this.view = newView;
  }

  void install(Router router) {
    router.get(PATH).handler(this::answer);
  }

  private void answer(RoutingContext ctx) {
    HttpApi.sendJson(ctx, 200, json(view.current()));
  }

  String document() {
    return json(view.current()).encode();
  }

  /** The answer's body, {@code {"detector":"on","drift":[...]}}. */
  static JsonObject json(DriftSnapshot snapshot) {
    JsonArray drift = new JsonArray();
    for (DriftEntry entry : snapshot.drift()) {
      drift.add(
          new JsonObject()
              .put("namespace", entry.namespace())
              .put("service", entry.service())
              .put("port", entry.port())
              .put("pod", entry.pod())
              .put("reason", entry.reasonLabel())
              .put("since", entry.since().truncatedTo(ChronoUnit.SECONDS).toString())
              .put("message", entry.message()));
    }
    JsonObject body = new JsonObject().put("detector", snapshot.state().label());
    if (snapshot.state() == DriftSnapshot.State.OFF) {
      body.put("reason", snapshot.why());
    }
    return body.put("drift", drift);
  }
}
