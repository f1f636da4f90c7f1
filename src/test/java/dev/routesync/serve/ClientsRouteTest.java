package dev.routesync.serve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.api.v1.WatchRequest;
import dev.routesync.sidecars.Sidecars;
import dev.routesync.testing.GrpcJavaClient;
import dev.routesync.testing.ServeHarness;
import dev.routesync.testing.UdsHttp;
import dev.routesync.testing.WatchRecorder;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code GET /v1/clients} with many real Watch streams: bounded, said so, names cut. */
@Timeout(120)
class ClientsRouteTest {

  private static final int STREAMS = 300;

  private ServeHarness serve;
  private GrpcJavaClient grpc;
  private UdsHttp http;

  @BeforeEach
  void start() throws Exception {
    serve = new ServeHarness();
    serve.put("shop", "cart", 2);
    grpc = new GrpcJavaClient(serve.socket());
    http = new UdsHttp(serve.socket());
  }

  @AfterEach
  void stop() throws Exception {
    grpc.close();
    serve.close();
  }

  @Test
  void manyClientsGiveAnAnswerOfAtMostTheLimitThatSaysHowManyThereAre() throws Exception {
    grpc.watchAll(STREAMS, Duration.ofSeconds(60));
    WatchRecorder named = new WatchRecorder();
    grpc.watch(
        WatchRequest.newBuilder()
            .setClientName("evil\n" + "n".repeat(50_000))
            .setNamespace("shop")
            .build(),
        named);
    Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> !named.events().isEmpty());

    UdsHttp.Reply reply = http.get("/v1/clients");
    assertThat(reply.status()).isEqualTo(200);
    assertThat(reply.contentType()).startsWith("application/json");
    JsonObject answer = reply.json();
    assertThat(answer.getInteger("total")).isEqualTo(STREAMS + 1);
    assertThat(answer.getInteger("limit")).isEqualTo(Sidecars.DEFAULT_LIMIT);
    assertThat(answer.getBoolean("truncated")).isTrue();
    assertThat(answer.getJsonArray("clients")).hasSize(Sidecars.DEFAULT_LIMIT);

    JsonObject all = http.get("/v1/clients?limit=500").json();
    assertThat(all.getJsonArray("clients")).hasSize(STREAMS + 1);
    assertThat(all.getBoolean("truncated")).isFalse();
    String name =
        all.getJsonArray("clients").stream()
            .map(JsonObject.class::cast)
            .map(client -> client.getString("client_name"))
            .filter(n -> n.startsWith("evil"))
            .findFirst()
            .orElseThrow();
    assertThat(name).startsWith("evil?nnn").hasSize(128 + 3);
    // Each listed stream costs a few hundred bytes at most: 500 of them stay well under 1 MB.
    assertThat(http.get("/v1/clients?limit=500").body().length()).isLessThan(400 * (STREAMS + 1));
  }

  @Test
  void aClientNameCanNeitherReorderNorBreakTheLinesItIsShownOn() throws Exception {
    // Right-to-left override, line and paragraph separators, a right-to-left mark, an isolate,
    // the Arabic letter mark, NEL (C1) and a zero-width space: each would change how the rest of
    // a row of `routesync get clients` reads.
    String hostile = "ok\u202Eevil\u2028x\u2029y\u200Fz\u2066w\u061Cv\u0085c\u200Bd";
    // 127 characters, then an emoji (two chars, one code point) across the 128th.
    String long_ = "a".repeat(127) + "\uD83D\uDE00" + "z".repeat(10);
    WatchRecorder first = new WatchRecorder();
    WatchRecorder second = new WatchRecorder();
    grpc.watch(
        WatchRequest.newBuilder().setClientName(hostile).setNamespace("shop").build(), first);
    grpc.watch(WatchRequest.newBuilder().setClientName(long_).setNamespace("shop").build(), second);
    Awaitility.await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> !first.events().isEmpty() && !second.events().isEmpty());

    java.util.List<String> names =
        http.get("/v1/clients").json().getJsonArray("clients").stream()
            .map(JsonObject.class::cast)
            .map(client -> client.getString("client_name"))
            .toList();

    assertThat(names)
        .contains("ok?evil?x?y?z?w?v?c?d")
        .contains("a".repeat(127) + "\uD83D\uDE00" + "...");
  }

  @Test
  void aLimitOutOfRangeIsABadRequest() throws Exception {
    for (String limit : new String[] {"0", "501", "abc", "-1"}) {
      UdsHttp.Reply reply = http.get("/v1/clients?limit=" + limit);
      assertThat(reply.status()).as(limit).isEqualTo(400);
      assertThat(reply.json().getString("error")).contains("limit must be");
    }
  }

  @Test
  void latencyWithoutSampleSaysSo() throws Exception {
    JsonObject latency = http.get("/v1/latency").json();
    assertThat(latency.getString("count")).isEqualTo("0");
    assertThat(latency.containsKey("p50")).isFalse();
  }
}
