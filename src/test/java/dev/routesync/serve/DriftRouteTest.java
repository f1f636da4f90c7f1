package dev.routesync.serve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.drift.DriftEntry;
import dev.routesync.drift.DriftSnapshot;
import dev.routesync.rules.MissingReason;
import dev.routesync.table.TableTrust;
import dev.routesync.table.TableWriter;
import dev.routesync.testing.UdsHttp;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code GET /v1/drift} on the socket, from a snapshot the test sets (the admin port does not serve
 * it: {@code AdminFloodTest}).
 */
class DriftRouteTest {

  @TempDir Path dir;

  private final AtomicReference<DriftSnapshot> snapshot =
      new AtomicReference<>(DriftSnapshot.STARTING_EMPTY);
  private Vertx vertx;
  private SocketServer socket;
  private UdsHttp http;

  @BeforeEach
  void start() throws Exception {
    vertx = Vertx.vertx();
    HttpApi api =
        new HttpApi(new TableWriter(Clock.systemUTC(), 16), TableTrust.untrusted())
            .serveDrift(snapshot::get);
    socket = new SocketServer(vertx, dir.resolve("api.sock"), api.router(vertx));
    socket.listen().await(10, TimeUnit.SECONDS);
    http = new UdsHttp(dir.resolve("api.sock"));
  }

  @AfterEach
  void stop() throws Exception {
    http.close();
    socket.close().await(10, TimeUnit.SECONDS);
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  @Test
  void listsTheDriftingPodsSortedWithRfc3339Since() throws Exception {
    snapshot.set(
        new DriftSnapshot(
            DriftSnapshot.State.ON,
            "",
            List.of(
                entry("quote-new-1", MissingReason.NAMED_PORT_NOT_FOUND),
                entry("quote-new-2", MissingReason.NOT_IN_ENDPOINTS))));

    for (JsonObject body : List.of(socketGet())) {
      assertThat(body.getString("detector")).isEqualTo("on");
      assertThat(body.containsKey("reason")).isFalse();
      assertThat(body.getJsonArray("drift")).hasSize(2);
      JsonObject first = body.getJsonArray("drift").getJsonObject(0);
      assertThat(first.fieldNames())
          .containsExactlyInAnyOrder(
              "namespace", "service", "port", "pod", "reason", "since", "message");
      assertThat(first.getString("pod")).isEqualTo("quote-new-1");
      assertThat(first.getString("reason")).isEqualTo("NamedPortNotFound");
      assertThat(first.getString("since")).isEqualTo("2026-09-17T14:10:00Z");
      assertThat(first.getString("service")).isEqualTo("quote");
      assertThat(first.getString("port")).isEqualTo("http");
      assertThat(first.getString("message")).contains("http-api");
    }
  }

  @Test
  void aDetectorThatIsOffSaysSoAndWhyWithAnEmptyList() throws Exception {
    snapshot.set(DriftSnapshot.off("no --node-name (NODE_NAME)"));

    for (JsonObject body : List.of(socketGet())) {
      assertThat(body.getString("detector")).isEqualTo("off");
      assertThat(body.getString("reason")).contains("--node-name");
      assertThat(body.getJsonArray("drift")).isEmpty();
    }
  }

  @Test
  void aStartingDetectorIsNotACleanNode() throws Exception {
    assertThat(socketGet().getString("detector")).isEqualTo("starting");
  }

  @Test
  void otherMethodsGetTheJsonErrorBody() throws Exception {
    UdsHttp.Reply reply = http.request("POST", "/v1/drift");
    assertThat(reply.status()).isEqualTo(405);
    assertThat(reply.json().getInteger("status")).isEqualTo(405);
  }

  private JsonObject socketGet() throws Exception {
    UdsHttp.Reply reply = http.get("/v1/drift");
    assertThat(reply.status()).isEqualTo(200);
    assertThat(reply.contentType()).isEqualTo("application/json");
    return reply.json();
  }

  private static DriftEntry entry(String pod, MissingReason reason) {
    return new DriftEntry(
        "shop",
        "quote",
        "http",
        pod,
        "uid-" + pod,
        reason,
        Instant.parse("2026-09-17T14:10:00.123Z"),
        "port http (80 -> http/TCP): no container port named http; the pod declares http-api",
        List.of("http-api"));
  }
}
