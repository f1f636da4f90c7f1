package dev.routesync.logs;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** What a log line loses to redaction, and what it keeps. */
class LogRedactionTest {

  static Stream<Arguments> lines() {
    return Stream.of(
        Arguments.of(
            "fabric8's request header",
            "> Authorization: Bearer abc.def.ghi",
            "> Authorization: Bearer <redacted>"),
        Arguments.of(
            "a header map's toString",
            "headers={Accept=[application/json], Authorization=[Basic dXNlcjpwdw==]}",
            "headers={Accept=[application/json], Authorization=[Basic <redacted>]}"),
        Arguments.of(
            "a header in JSON",
            "{\"Authorization\":\"Bearer abc.def.ghi\"}",
            "{\"Authorization\":\"Bearer <redacted>\"}"),
        Arguments.of(
            "a bearer token anywhere",
            "sent bearer abc.def.ghi twice",
            "sent bearer <redacted> twice"),
        Arguments.of(
            "a token parameter",
            "GET /api?watch=true&access_token=abc.def.ghi&limit=50",
            "GET /api?watch=true&access_token=<redacted>&limit=50"),
        Arguments.of(
            "a password in a record's toString",
            "Login[user=admin, password=hunter2]",
            "Login[user=admin, password=<redacted>]"),
        Arguments.of(
            "a JSON Web Token alone",
            "token eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl read",
            "token <redacted> read"),
        Arguments.of(
            "a URL's password",
            "proxy https://admin:hunter2@10.0.0.1:6443/api",
            "proxy https://admin:<redacted>@10.0.0.1:6443/api"),
        Arguments.of(
            "a private key",
            "key -----BEGIN EC PRIVATE KEY-----\nMHcCAQEE\n-----END EC PRIVATE KEY----- loaded",
            "key -----BEGIN EC PRIVATE KEY-----<redacted>-----END EC PRIVATE KEY----- loaded"),
        Arguments.of(
            "an ordinary line",
            "listing EndpointSlice (initial, generation 1) from https://10.0.0.1:6443",
            "listing EndpointSlice (initial, generation 1) from https://10.0.0.1:6443"),
        Arguments.of(
            "a word that only starts like a secret's name",
            "secretName=tls-cert tokenizer=none",
            "secretName=tls-cert tokenizer=none"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("lines")
  void aCredentialIsRedactedAndTheRestOfTheLineKept(String name, String line, String written) {
    assertThat(LogRedaction.redact(line)).isEqualTo(written);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("lines")
  void redactingTwiceChangesNothingMore(String name, String line, String written) {
    assertThat(LogRedaction.redact(LogRedaction.redact(line))).isEqualTo(written);
  }
}
