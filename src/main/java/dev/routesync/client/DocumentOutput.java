package dev.routesync.client;

import io.fabric8.kubernetes.client.utils.Serialization;
import io.vertx.core.json.JsonObject;

/**
 * {@code -o json} and {@code -o yaml}: one document, the agent's JSON answer as it is, or the same
 * fields as YAML (fabric8's YAML writer, as {@code kubectl -o yaml} prints).
 */
final class DocumentOutput {

  private DocumentOutput() {}

  /** {@code json}, a JSON object's text, printed in {@code format} (JSON or YAML). */
  static String render(OutputFormat format, String json) {
    if (format != OutputFormat.YAML) {
      return json.endsWith("\n") ? json : json + "\n";
    }
    return Serialization.asYaml(new JsonObject(json).getMap());
  }
}
