package dev.routesync.serve;

import com.google.protobuf.Duration;
import dev.routesync.api.ApiJson;
import dev.routesync.api.v1.ClientSync;
import dev.routesync.api.v1.ClientsResponse;
import dev.routesync.api.v1.LatencyResponse;
import dev.routesync.api.v1.TypeSync;
import dev.routesync.sidecars.ClientView;
import dev.routesync.sidecars.ClientsSnapshot;
import dev.routesync.sidecars.PropagationHistogram;
import dev.routesync.sidecars.Protocol;
import dev.routesync.sidecars.Sidecars;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * {@code GET /v1/clients} and {@code GET /v1/latency}, on the socket only (never the admin port:
 * peers' uids, pids and names are for the node's operators): each open stream's sync state, and the
 * propagation latency their acknowledgements measured. Both are {@code routesync.v1} messages in
 * the proto3 JSON mapping, like the rest of the API. Always 200: the answers are about the agent's
 * clients, not the table, so they need no trusted table.
 */
final class ClientsRoute {

  static final String CLIENTS = "/v1/clients";
  static final String LATENCY = "/v1/latency";

  private volatile Sidecars sidecars = new Sidecars();

  void serve(Sidecars registry) {
    this.sidecars = registry;
  }

  Sidecars sidecars() {
    return sidecars;
  }

  void install(Router router) {
    router.get(CLIENTS).handler(this::clients);
    router.get(LATENCY).handler(this::latency);
  }

  private void clients(RoutingContext ctx) {
    String asked = ctx.request().getParam("limit");
    int limit = Sidecars.DEFAULT_LIMIT;
    if (asked != null) {
      try {
        limit = Integer.parseInt(asked.trim());
      } catch (NumberFormatException e) {
        limit = 0;
      }
      if (limit < 1 || limit > Sidecars.MAX_LIMIT) {
        Errors.send(ctx, 400, "limit must be a whole number from 1 to " + Sidecars.MAX_LIMIT);
        return;
      }
    }
    send(ctx, ApiJson.compact(clients(sidecars.snapshot(limit))));
  }

  /** The body of {@code GET /v1/clients} at the default limit. */
  String document() {
    return ApiJson.compact(clients(sidecars.snapshot(Sidecars.DEFAULT_LIMIT)));
  }

  private void latency(RoutingContext ctx) {
    send(ctx, ApiJson.compact(latency(sidecars.latency())));
  }

  static ClientsResponse clients(ClientsSnapshot snapshot) {
    ClientsResponse.Builder out =
        ClientsResponse.newBuilder()
            .setTotal(snapshot.total())
            .setLimit(snapshot.limit())
            .setTruncated(snapshot.truncated())
            .setBehind(snapshot.behind())
            .setBehindThreshold(duration(snapshot.behindThresholdMillis()));
    for (ClientView client : snapshot.clients()) {
      out.addClients(client(client));
    }
    return out.build();
  }

  static ClientSync client(ClientView client) {
    ClientSync.Builder out =
        ClientSync.newBuilder()
            .setProtocol(client.protocol().label())
            .setSubscribed(client.subscribed())
            .setLastNack(client.lastNack())
            .setLastNackType(client.lastNackType())
            .setBehind(duration(client.behindMillis()))
            .setConnectedFor(duration(client.connectedMillis()));
    if (client.protocol() == Protocol.WATCH) {
      out.setClientName(client.name());
    } else {
      out.setNodeId(client.name());
    }
    if (client.peer().known()) {
      out.setUid((int) client.peer().uid()).setPid(client.peer().pid());
    }
    for (dev.routesync.sidecars.TypeSync type : client.types()) {
      out.addTypes(
          TypeSync.newBuilder()
              .setType(type.type())
              .setSentVersion(type.sentVersion())
              .setAckedVersion(type.ackedVersion()));
    }
    return out.build();
  }

  static LatencyResponse latency(PropagationHistogram.Snapshot snapshot) {
    LatencyResponse.Builder out = LatencyResponse.newBuilder().setCount(snapshot.count());
    if (snapshot.count() > 0) {
      out.setP50(duration(snapshot.quantileMillis(0.5)))
          .setP99(duration(snapshot.quantileMillis(0.99)))
          .setP99Overflowed(snapshot.overflowed(0.99));
    }
    return out.build();
  }

  private static Duration duration(long millis) {
    return Duration.newBuilder()
        .setSeconds(millis / 1000)
        .setNanos((int) (millis % 1000) * 1_000_000)
        .build();
  }

  private static void send(RoutingContext ctx, String json) {
    ctx.response().setStatusCode(200).putHeader("content-type", "application/json").end(json);
  }
}
