package dev.routesync.serve;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.routesync.testing.RawConnection;
import dev.routesync.testing.ServeHarness;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.AfterAll;

/**
 * The HTTP API's path and query parsing, through the real stack: the request target goes, in a
 * request line, over the agent's Unix socket to an {@link ApiServer} (Netty's decoder, the
 * connection guards, Vert.x's path normalisation and decoding, the router, {@link HttpApi}'s own
 * checks). Whatever the target, the answer is a whole response below 500 (a client's mistake is
 * never the server's error), and a JSON answer is a JSON document. Most of the parsing is Vert.x's,
 * so it is driven here as it runs, not through a copy of it.
 *
 * <p>The input's first byte picks the method; the rest, up to the first whitespace (which would end
 * the request target), is the target. A normal build replays {@code HttpApiFuzzTestInputs/}; {@code
 * scripts/fuzz.sh} fuzzes.
 */
class HttpApiFuzzTest {

  private static final List<String> METHODS = List.of("GET", "GET", "GET", "POST", "DELETE");
  private static final Duration ANSWER = Duration.ofSeconds(10);

  private static ServeHarness server;
  private static RawConnection connection;

  @AfterAll
  static void stop() throws Exception {
    if (connection != null) {
      connection.close();
    }
    if (server != null) {
      server.close();
    }
  }

  @FuzzTest
  @DictionaryEntries({
    "/v1/services",
    "/v1/services/",
    "/v1/services/shop/cart",
    "/v1/drift",
    "?namespace=",
    "&namespace=",
    "%2F",
    "%2e%2e",
    "/../",
    "//",
    "%",
    ";",
    "#",
  })
  void requestTarget(byte[] input) throws Exception {
    if (input.length == 0) {
      return;
    }
    String method = METHODS.get((input[0] & 0xff) % METHODS.size());
    String target = new String(input, 1, input.length - 1, StandardCharsets.ISO_8859_1);
    for (int i = 0; i < target.length(); i++) {
      if (Character.isWhitespace(target.charAt(i))) {
        target = target.substring(0, i);
        break;
      }
    }
    if (target.isEmpty()) {
      return; // no request line at all
    }
    String answer = exchange(method + " " + target + " HTTP/1.1\r\nhost: localhost\r\n\r\n");
    int status = Integer.parseInt(answer.substring(9, 12)); // "HTTP/1.x NNN"
    assertThat(status).as("%s %s answered %s", method, target, firstLine(answer)).isLessThan(500);
    String head = answer.substring(0, answer.indexOf("\r\n\r\n")).toLowerCase(Locale.ROOT);
    String body = answer.substring(answer.indexOf("\r\n\r\n") + 4);
    if (head.contains("content-type: application/json")) {
      JsonObject json = new JsonObject(body); // throws if it is no JSON object
      if (status >= 400) {
        assertThat(json.getString("error")).as(body).isNotBlank();
      }
    }
  }

  // One connection for as long as the server keeps it open; a fresh one after it closed.
  private static String exchange(String request) throws Exception {
    if (server == null) {
      server = new ServeHarness();
      server.put("shop", "cart", 2);
      server.put("kube-system", "dns", 1);
    }
    if (connection == null || connection.closedByServer()) {
      if (connection != null) {
        connection.close();
      }
      connection = RawConnection.unix(server.socket());
    }
    String answer;
    try {
      answer = connection.write(request).readUntilAnswered(ANSWER);
    } catch (IOException closed) {
      connection.close();
      connection = null;
      throw new AssertionError("no answer to " + firstLine(request) + ": " + closed.getMessage());
    }
    // HTTP/1.0 when the request line could not be read, so its version is unknown (a 414 for a
    // line over 4,096 bytes: the fuzzer's first input here, and no bug).
    assertThat(answer).containsPattern("^HTTP/1\\.[01] [1-5][0-9][0-9] ");
    if (answer.toLowerCase(Locale.ROOT).contains("\r\nconnection: close")) {
      connection.close();
      connection = null;
    }
    return answer;
  }

  private static String firstLine(String text) {
    int end = text.indexOf('\r');
    return end < 0 ? text : text.substring(0, end);
  }
}
