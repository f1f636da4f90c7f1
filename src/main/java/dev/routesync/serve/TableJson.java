package dev.routesync.serve;

import dev.routesync.table.Endpoint;
import dev.routesync.table.Port;
import dev.routesync.table.ServiceEndpoints;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Collection;

/** The HTTP API's JSON shapes; field names are part of the API (see README). */
final class TableJson {

  private TableJson() {}

  static JsonObject serviceList(long version, Collection<ServiceEndpoints> services) {
    JsonArray array = new JsonArray();
    for (ServiceEndpoints service : services) {
      array.add(service(service));
    }
    return new JsonObject().put("version", version).put("services", array);
  }

  static JsonObject service(ServiceEndpoints service) {
    JsonArray endpoints = new JsonArray();
    for (Endpoint endpoint : service.endpoints()) {
      endpoints.add(endpoint(endpoint));
    }
    return new JsonObject()
        .put("namespace", service.key().namespace())
        .put("name", service.key().name())
        .put("version", service.version())
        .put("endpoints", endpoints);
  }

  static JsonObject endpoint(Endpoint endpoint) {
    JsonArray ports = new JsonArray();
    for (Port port : endpoint.ports()) {
      ports.add(
          new JsonObject()
              .put("name", port.name())
              .put("port", port.port())
              .put("protocol", port.protocol()));
    }
    return new JsonObject()
        .put("ip", endpoint.ip())
        .put("ports", ports)
        .put("zone", endpoint.zone())
        .put("node", endpoint.node())
        .put("pod", endpoint.pod())
        .put("ready", endpoint.ready())
        .put("serving", endpoint.serving())
        .put("terminating", endpoint.terminating());
  }

  static JsonObject error(int status, String message) {
    return new JsonObject().put("status", status).put("error", message);
  }
}
