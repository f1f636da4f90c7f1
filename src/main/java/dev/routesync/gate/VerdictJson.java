package dev.routesync.gate;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * The verdict for machines ({@code -o json}); the schema is in docs/rollout-safety.md ({@code
 * routesync gate}) and fixed by {@code GateJsonTest}. Fields are never dropped: a field that does
 * not apply is {@code null} or empty.
 */
final class VerdictJson {

  private VerdictJson() {}

  static String render(Verdict verdict) {
    JsonArray services = new JsonArray();
    verdict
        .evaluation()
        .ifPresent(evaluation -> evaluation.services().forEach(s -> services.add(service(s))));
    JsonObject json =
        new JsonObject()
            .put("result", verdict.result().label())
            .put("message", verdict.summary())
            .put("elapsedMillis", verdict.elapsedNanos() / 1_000_000)
            .put("services", services);
    return json.encodePrettily() + "\n";
  }

  private static JsonObject service(ServiceResult service) {
    JsonArray ports = new JsonArray();
    service.ports().forEach(p -> ports.add(port(p)));
    return new JsonObject()
        .put("namespace", service.namespace())
        .put("name", service.name())
        .put("checked", service.evaluated())
        .put("note", service.skipped().orElse(null))
        .put("ports", ports);
  }

  private static JsonObject port(PortResult port) {
    JsonArray missing = new JsonArray();
    for (MissingPod pod : port.missing()) {
      missing.add(
          new JsonObject()
              .put("pod", pod.pod())
              .put("uid", pod.uid())
              .put("reason", pod.missing().reason().label())
              .put("message", pod.missing().message())
              .put("declaredPorts", new JsonArray(pod.missing().declaredNames()))
              .put("closest", pod.missing().closest().orElse(null)));
    }
    return new JsonObject()
        .put("name", port.name())
        .put("description", port.description())
        .put("expected", port.expected())
        .put("ready", port.ready())
        .put("missing", missing);
  }
}
