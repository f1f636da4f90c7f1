package dev.routesync.serve;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Takes credentials out of a JSON document before it leaves the process in a debug bundle: a value
 * under a key that names a secret (token, password, secret, private key, credential, authorization,
 * API key) and any string that looks like one wherever it is (an {@code Authorization} value such
 * as {@code Bearer ...}, a PEM block, a JSON Web Token, a URL with a password in it) become {@value
 * #REDACTED}.
 *
 * <p>A second line of defence: the agent's configuration holds no secret (the kubeconfig is a path,
 * the rest are addresses, durations, limits and names), and the kubeconfig's facts name the kind of
 * credential, never its value. This catches what a future field or a mistake would let through.
 */
final class Redaction {

  static final String REDACTED = "<redacted>";

  private static final Pattern SECRET_KEY =
      Pattern.compile(
          "token|password|passwd|passphrase|secret|credential|private.?key|authorization|api.?key"
              + "|client.?key|cookie");
  private static final Pattern SECRET_VALUE =
      Pattern.compile(
          "(?i)^\\s*(bearer|basic)\\s+\\S+" // an Authorization header's value
              + "|-----BEGIN [A-Z ]*-----" // PEM: keys and certificates
              + "|eyJ[A-Za-z0-9_-]{4,}\\.[A-Za-z0-9_-]{4,}" // a JSON Web Token
              + "|://[^/@\\s:]+:[^/@\\s]+@"); // user:password@ in a URL

  private Redaction() {}

  /** A copy of {@code document} without credentials. */
  static JsonObject redact(JsonObject document) {
    JsonObject out = new JsonObject();
    for (String key : document.fieldNames()) {
      Object value = document.getValue(key);
      out.put(key, secretKey(key) && isScalar(value) ? REDACTED : redactValue(value));
    }
    return out;
  }

  private static Object redactValue(Object value) {
    if (value instanceof JsonObject object) {
      return redact(object);
    }
    if (value instanceof JsonArray array) {
      JsonArray out = new JsonArray();
      array.forEach(item -> out.add(redactValue(item)));
      return out;
    }
    if (value instanceof String text && looksLikeASecret(text)) {
      return REDACTED;
    }
    return value;
  }

  static boolean secretKey(String key) {
    return SECRET_KEY.matcher(key.toLowerCase(Locale.ROOT)).find();
  }

  static boolean looksLikeASecret(String value) {
    return SECRET_VALUE.matcher(value).find();
  }

  // An object under a secret-sounding key is walked, not dropped: its own keys decide.
  private static boolean isScalar(Object value) {
    return value != null && !(value instanceof JsonObject) && !(value instanceof JsonArray);
  }
}
