package dev.routesync.serve;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RedactionTest {

  @ParameterizedTest
  @ValueSource(
      strings = {
        "token",
        "oauthToken",
        "password",
        "clientKeyData",
        "Authorization",
        "apiKey",
        "privateKey",
        "secret"
      })
  void aValueUnderACredentialsNameIsRedacted(String key) {
    JsonObject out = Redaction.redact(new JsonObject().put(key, "plain-looking"));
    assertThat(out.getString(key)).isEqualTo(Redaction.REDACTED);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "Bearer abc.def",
        "basic dXNlcjpwYXNz",
        "-----BEGIN RSA PRIVATE KEY-----\nMIIE",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.x",
        "https://user:pw@10.0.0.1:6443"
      })
  void aValueThatLooksLikeACredentialIsRedactedWhereverItIs(String value) {
    JsonObject out =
        Redaction.redact(
            new JsonObject()
                .put("nested", new JsonObject().put("note", value))
                .put("list", new JsonArray().add(value)));
    assertThat(out.encode()).doesNotContain(value).contains(Redaction.REDACTED);
  }

  @Test
  void theRestIsKeptAsItIs() {
    JsonObject in =
        new JsonObject()
            .put("server", "https://10.0.0.1:6443")
            .put("auth", "token")
            .put("socket", "/var/run/routesync/routesync.sock")
            .put("limits", new JsonObject().put("maxConnections", 1024));
    assertThat(Redaction.redact(in)).isEqualTo(in);
  }
}
