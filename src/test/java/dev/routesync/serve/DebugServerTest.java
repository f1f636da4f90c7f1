package dev.routesync.serve;

import static dev.routesync.testing.TableStates.states;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import dev.routesync.logs.LogLevels;
import dev.routesync.logs.RecentLines;
import dev.routesync.observe.Metrics;
import dev.routesync.table.Endpoint;
import dev.routesync.table.Port;
import dev.routesync.table.ServiceKey;
import dev.routesync.table.TableTrust;
import dev.routesync.table.TableWriter;
import dev.routesync.testing.Http1;
import dev.routesync.testing.LibraryLog;
import dev.routesync.testing.LogCapture;
import dev.routesync.testing.RawConnection;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.LoggerFactory;

/**
 * The debug listener over real HTTP on loopback: the status page and what it reads, the log levels
 * changed at run time, the bad requests refused with a JSON body, and the requests a browser sends
 * for another site refused (a foreign {@code Host}: DNS rebinding; a foreign {@code Origin} on a
 * POST: a cross-site write).
 */
@ExtendWith(VertxExtension.class)
@Timeout(60)
class DebugServerTest {

  private static final String LOGGER = "dev.routesync.serve.DebugServerTest.probe";

  private final TableWriter table = new TableWriter(Clock.systemUTC(), 16);
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  // The agent's own meters, apart from the registry /debug/meters shows.
  private final SimpleMeterRegistry counted = new SimpleMeterRegistry();
  private DebugServer server;
  private String rootLevel;
  private int port;
  private String base;

  @BeforeEach
  void start(Vertx vertx) throws Exception {
    rootLevel = LogLevels.ofProcess().orElseThrow().levels().get(LogLevels.ROOT);
    server =
        new DebugServer(
            vertx,
            "127.0.0.1",
            0,
            new HttpApi(table, TableTrust.synced()),
            () -> registry,
            RecentLines.installed(),
            LogLevels.ofProcess(),
            ConnectionGuards.none(),
            ConnectionLimits.DEFAULT,
            new Metrics(counted).serve());
    port = server.listen().await(10, TimeUnit.SECONDS);
    base = "http://127.0.0.1:" + port;
    table.publish(
        states(
            Map.of(
                new ServiceKey("shop", "cart"),
                List.of(
                    new Endpoint(
                        "10.0.0.1",
                        List.of(new Port("http", 8080, "TCP")),
                        "zone-a",
                        "node-a",
                        "cart-1",
                        true,
                        true,
                        false)))),
        List.of());
  }

  @AfterEach
  void stop() throws Exception {
    server.close().await(10, TimeUnit.SECONDS);
    LogLevels.ofProcess().orElseThrow().set(LOGGER, "info");
    LogLevels.ofProcess().orElseThrow().set(LogLevels.ROOT, rootLevel);
  }

  @Test
  void theStatusPageIsOneSelfContainedDocumentThatMayLoadNothingElse() throws Exception {
    HttpResponse<String> page = Http1.get(base + "/status");
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.headers().firstValue("content-type")).hasValue("text/html; charset=utf-8");
    assertThat(page.headers().firstValue("content-security-policy").orElseThrow())
        .contains("default-src 'none'")
        .contains("connect-src 'self'");
    // Nothing from another origin: no src= or href= to anything but the page's own paths.
    assertThat(page.body()).doesNotContainPattern("(src|href)=\"(https?:)?//");
    // The summary, not the whole table: the page polls it every 2 s at any table size.
    assertThat(page.body()).contains("/v1/summary", "/debug/meters", "/debug/logs");
    assertThat(page.body()).doesNotContain("json(\"/v1/services\")");
  }

  @Test
  void servesTheSocketsReadApiToo() throws Exception {
    HttpResponse<String> services = Http1.get(base + "/v1/services");
    assertThat(services.statusCode()).isEqualTo(200);
    assertThat(
            new JsonObject(services.body())
                .getJsonArray("services")
                .getJsonObject(0)
                .getString("name"))
        .isEqualTo("cart");
    assertThat(Http1.get(base + "/v1/status").body()).contains("\"trust\":\"SYNCED\"");
  }

  @Test
  void aLoggersLevelChangesAtRunTimeAndItsLinesReachTheRecentLines() throws Exception {
    org.slf4j.Logger probe = LoggerFactory.getLogger(LOGGER);
    probe.debug("before: not logged");
    assertThat(post("/logging?" + LOGGER + "=debug").statusCode()).isEqualTo(200);
    assertThat(levels().getString(LOGGER)).isEqualTo("debug");
    probe.debug("after: logged at debug");
    probe.warn("a problem worth a look");

    JsonObject logs = new JsonObject(Http1.get(base + "/debug/logs").body());
    assertThat(logs.getJsonArray("lines").encode())
        .contains("after: logged at debug")
        .doesNotContain("before: not logged");
    assertThat(logs.getJsonArray("problems").encode())
        .contains("a problem worth a look")
        .doesNotContain("after: logged at debug");
  }

  @Test
  void aBearerTokenALibraryLogsIsRedactedInTheRecentLines() throws Exception {
    LibraryLog.warn(LibraryLog.FABRIC8_HTTP, "> Authorization: Bearer abc.def.ghi");

    String logs = Http1.get(base + "/debug/logs").body();

    assertThat(logs).contains("> Authorization: Bearer <redacted>").doesNotContain("abc.def.ghi");
  }

  @Test
  void badLevelsAndNamesAre400sWithAJsonBodyAndChangeNothing() throws Exception {
    HttpResponse<String> badLevel = post("/logging?" + LOGGER + "=loud&level=debug");
    assertThat(badLevel.statusCode()).isEqualTo(400);
    assertThat(new JsonObject(badLevel.body()).getString("error"))
        .contains("'loud' is not a level");
    // All or nothing: the valid pair beside the bad one did not apply.
    assertThat(levels().getString("root")).isNotEqualTo("debug");

    HttpResponse<String> badName = post("/logging?a..b=debug");
    assertThat(badName.statusCode()).isEqualTo(400);
    assertThat(new JsonObject(badName.body()).getString("error")).contains("not a logger name");

    HttpResponse<String> nothing = post("/logging");
    assertThat(nothing.statusCode()).isEqualTo(400);
    assertThat(new JsonObject(nothing.body()).getString("error")).contains("?level=debug");
  }

  @Test
  void newLoggerNamesCannotGrowTheLoggerTreeWithoutBound() throws Exception {
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    String unique = unique();
    int before = context.getLoggerList().size();
    int refused = 0;
    for (int i = 0; i < 100; i++) {
      // logback keeps a logger for every dotted prefix: this one name is 91 loggers.
      String name = unique + i + ".a".repeat(90);
      HttpResponse<String> answer = post("/logging?" + name + "=debug");
      if (answer.statusCode() == 400) {
        refused++;
        assertThat(new JsonObject(answer.body()).getString("error")).contains("no more than");
      } else {
        assertThat(answer.statusCode()).isEqualTo(200);
      }
    }

    assertThat(context.getLoggerList().size() - before).isLessThanOrEqualTo(100);
    assertThat(refused).isPositive();
  }

  @Test
  void aRequestRefusedAtTheBoundChangesNothing() throws Exception {
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    String unique = unique();
    StringBuilder almostAll = new StringBuilder();
    for (int i = 0; i < 99; i++) {
      almostAll.append(i == 0 ? "" : "&").append(unique).append("a").append(i).append("=debug");
    }
    assertThat(post("/logging?" + almostAll).statusCode()).isEqualTo(200);

    HttpResponse<String> overTheBound =
        post("/logging?" + unique + "b1=debug&" + unique + "b2=debug");

    assertThat(overTheBound.statusCode()).isEqualTo(400);
    assertThat(new JsonObject(overTheBound.body()).getString("error")).contains("no more than");
    assertThat(levels().fieldNames()).doesNotContain(unique + "b1", unique + "b2");
    assertThat(context.exists(unique + "b1")).isNull();
    // What still fits is accepted.
    assertThat(post("/logging?" + unique + "b1=debug").statusCode()).isEqualTo(200);
    assertThat(levels().getString(unique + "b1")).isEqualTo("debug");
  }

  // Logger names no other test (or earlier run in this JVM) has made: loggers are never removed.
  private static String unique() {
    return "t" + Integer.toString(ThreadLocalRandom.current().nextInt(1 << 30), 36) + "x";
  }

  @Test
  void metersAreTheAgentsOwnCountersAndGauges() throws Exception {
    registry.counter("routesync.relists", "reason", "gone").increment(2);
    registry.counter("jvm.other").increment();
    JsonObject meters = new JsonObject(Http1.get(base + "/debug/meters").body());
    assertThat(meters.getJsonArray("meters").encode())
        .contains("\"name\":\"routesync.relists\"", "\"reason\":\"gone\"", "\"value\":2.0")
        .doesNotContain("jvm.other");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"/status", "/debug/bundle", "/debug/logs", "/v1/clients", "/logging", "/nothing"})
  void aRequestForAForeignHostIsRefusedWhateverItAsks(String path) throws Exception {
    // What a page on evil.example sends once its name resolves to 127.0.0.1 (DNS rebinding).
    Answer answer = send("GET", path, "Host: evil.example:" + port);

    assertThat(answer.status()).isEqualTo(421);
    assertThat(new JsonObject(answer.body()).getString("error")).contains("loopback");
    assertThat(refused("host")).isEqualTo(1.0);
  }

  @Test
  void aForeignHostCannotChangeALevelEvenFromItsOwnOrigin() throws Exception {
    Answer answer =
        send(
            "POST",
            "/logging?" + LOGGER + "=trace",
            "Host: evil.example:" + port,
            "Origin: http://evil.example:" + port);

    assertThat(answer.status()).isEqualTo(421);
    assertThat(levels().getString(LOGGER)).isNotEqualTo("trace");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "localhost:PORT",
        "127.0.0.1:PORT",
        "[::1]:PORT",
        "LocalHost:PORT",
        "localhost",
        "127.0.0.1",
        "[::1]",
        "127.8.9.10:PORT",
        "[0:0:0:0:0:0:0:1]:PORT",
        // kubectl port-forward 8080:9902: the browser names the workstation's port, not ours
        "localhost:8080"
      })
  void loopbackHostsAreServedWithAnyPort(String host) throws Exception {
    String header = "Host: " + host.replace("PORT", Integer.toString(port));
    for (String path : List.of("/status", "/debug/logs", "/v1/clients")) {
      assertThat(send("GET", path, header).status()).as(header + " " + path).isEqualTo(200);
    }
    assertThat(refused("host")).isZero();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "Origin: http://evil.example",
        // another local server's page (a dev server on 3000) is another origin
        "Origin: http://127.0.0.1:3000",
        "Origin: https://127.0.0.1:PORT",
        // sandboxed frames, data: URLs, some redirects
        "Origin: null",
        "Sec-Fetch-Site: cross-site",
        "Sec-Fetch-Site: same-site"
      })
  void aPostFromAnotherOriginIsRefusedAndChangesNoLevel(String header) throws Exception {
    Answer answer =
        send(
            "POST",
            "/logging?level=trace&" + LOGGER + "=trace",
            "Host: 127.0.0.1:" + port,
            header.replace("PORT", Integer.toString(port)));

    assertThat(answer.status()).isEqualTo(403);
    assertThat(new JsonObject(answer.body()).getString("error")).contains("origin");
    assertThat(levels().getString(LOGGER)).isNotEqualTo("trace");
    assertThat(levels().getString("root")).isEqualTo(rootLevel);
    assertThat(refused("origin")).isEqualTo(1.0);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "Origin: http://127.0.0.1:PORT",
        "Sec-Fetch-Site: same-origin",
        // typed into the address bar, a bookmark
        "Sec-Fetch-Site: none",
        // curl, routesync's CLI: no browser, no Origin
        "User-Agent: curl/8.5.0"
      })
  void aPostFromTheListenersOwnOriginOrFromNoBrowserChangesTheLevel(String header)
      throws Exception {
    Answer answer =
        send(
            "POST",
            "/logging?" + LOGGER + "=debug",
            "Host: 127.0.0.1:" + port,
            header.replace("PORT", Integer.toString(port)));

    assertThat(answer.status()).isEqualTo(200);
    assertThat(levels().getString(LOGGER)).isEqualTo("debug");
    assertThat(refused("origin")).isZero();
  }

  @Test
  void theOwnOriginIsTheHostTheBrowserNamedSoAPortForwardOnAnotherPortWorks() throws Exception {
    Answer answer =
        send(
            "POST",
            "/logging?" + LOGGER + "=debug",
            "Host: localhost:8080",
            "Origin: http://localhost:8080",
            "Sec-Fetch-Site: same-origin");

    assertThat(answer.status()).isEqualTo(200);
    assertThat(levels().getString(LOGGER)).isEqualTo("debug");
  }

  @Test
  void aGetFromThePagesOwnOriginIsServed() throws Exception {
    // What status.html's fetch() sends.
    Answer answer =
        send(
            "GET",
            "/v1/services",
            "Host: 127.0.0.1:" + port,
            "Origin: http://127.0.0.1:" + port,
            "Sec-Fetch-Site: same-origin");

    assertThat(answer.status()).isEqualTo(200);
  }

  @Test
  void refusalsAreCountedEachButLoggedOnceAMinute() throws Exception {
    try (LogCapture log = new LogCapture("dev.routesync.serve", Level.WARN)) {
      for (int i = 0; i < 3; i++) {
        assertThat(send("GET", "/debug/logs", "Host: evil.example").status()).isEqualTo(421);
      }
      assertThat(refused("host")).isEqualTo(3.0);
      assertThat(log.atLeast(Level.WARN))
          .singleElement()
          .asString()
          .contains("debug listener", "Host");
    }
  }

  private double refused(String reason) {
    var counter = counted.find("routesync.debug.requests.refused").tag("reason", reason).counter();
    return counter == null ? 0 : counter.count();
  }

  /** One HTTP/1.1 request with exactly these headers, as a browser or an attacker writes it. */
  private Answer send(String method, String path, String... headers) throws Exception {
    StringBuilder request = new StringBuilder(method + " " + path + " HTTP/1.1\r\n");
    for (String header : headers) {
      request.append(header).append("\r\n");
    }
    request.append("Content-Length: 0\r\nConnection: close\r\n\r\n");
    try (RawConnection connection = RawConnection.tcp(port)) {
      String answer = connection.write(request.toString()).readToEnd(Duration.ofSeconds(10));
      int end = answer.indexOf("\r\n\r\n");
      assertThat(end).as("a whole answer: " + answer).isPositive();
      return new Answer(Integer.parseInt(answer.substring(9, 12)), answer.substring(end + 4));
    }
  }

  private record Answer(int status, String body) {}

  private JsonObject levels() throws Exception {
    return new JsonObject(Http1.get(base + "/logging").body()).getJsonObject("levels");
  }

  private HttpResponse<String> post(String path) throws Exception {
    return Http1.send(
        HttpRequest.newBuilder(URI.create(base + path)).POST(HttpRequest.BodyPublishers.noBody()));
  }
}
