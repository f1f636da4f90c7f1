package dev.routesync.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.table.TableTrust;
import dev.routesync.testing.ServeHarness;
import dev.routesync.testing.UdsHttp;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code routesync get} says when the agent's table is stale (a header line above the table,
 * nothing when fresh), and {@code get status} prints the Status answer; against the real serving
 * stack.
 */
@Timeout(60)
class StaleTableCliTest {

  private static final Duration RELIST_AFTER = Duration.ofSeconds(10);

  private final TableTrust trust = TableTrust.untrusted();
  private final AtomicLong downNanos = new AtomicLong();
  private ServeHarness serve;

  @BeforeEach
  void start() throws Exception {
    serve = ServeHarness.watched(trust, downNanos::get, RELIST_AFTER);
    serve.put("shop", "cart", 2);
  }

  @AfterEach
  void stop() throws Exception {
    serve.close();
  }

  private Cli.Result cli(String args) {
    Cli.Result result = Cli.run((args + " --socket " + serve.socket()).split(" "));
    assertThat(result.exitCode()).as(result.err()).isEqualTo(0);
    return result;
  }

  @Test
  void aRestoredTableGetsAHeaderSayingWhereItCameFrom() {
    trust.raise(TableTrust.Level.RESTORED);
    String header =
        "# stale: not yet confirmed by the Kubernetes API server (restored from the state file)";
    assertThat(cli("get services").out()).startsWith(header + "\n").contains("shop        cart");
    assertThat(cli("get endpoints shop/cart").out()).startsWith(header + "\n").contains("10.0.0.1");
  }

  @Test
  void aTableDisconnectedPastRelistAfterSaysSinceWhen() {
    serve.freshness().heard(Instant.parse("2026-12-01T14:02:03.250Z"));
    trust.raise(TableTrust.Level.SYNCED);
    downNanos.set(Duration.ofSeconds(133).toNanos());
    assertThat(cli("get services").out())
        .startsWith(
            "# stale: not confirmed by the Kubernetes API server since 2026-12-01T14:02:03Z"
                + " (disconnected for 2m13s)\n");
  }

  @Test
  void aFreshTableGetsNoHeader() {
    serve.freshness().heard(Instant.now());
    trust.raise(TableTrust.Level.SYNCED);
    assertThat(cli("get services").out()).startsWith("NAMESPACE ");
    assertThat(cli("get endpoints shop/cart").out()).startsWith("IP ");
  }

  @Test
  void jsonCarriesStaleAndSyncedAtAsTheHttpApiDoes() throws Exception {
    serve.freshness().heard(Instant.parse("2026-12-01T14:02:03.250Z"));
    trust.raise(TableTrust.Level.SYNCED);
    downNanos.set(Duration.ofSeconds(30).toNanos());
    JsonObject endpoints = new JsonObject(cli("get endpoints shop/cart -o json").out());
    assertThat(endpoints.getBoolean("stale")).isTrue();
    assertThat(endpoints.getString("synced_at")).isEqualTo("2026-12-01T14:02:03.250Z");
    try (UdsHttp http = new UdsHttp(serve.socket())) {
      assertThat(http.get("/v1/services/shop/cart").json()).isEqualTo(endpoints);
      assertThat(http.get("/v1/services").json())
          .isEqualTo(new JsonObject(cli("get services -o json").out()));
    }
  }

  @Test
  void getStatusPrintsTheStatusAnswerBeforeTheFirstSyncToo() throws Exception {
    Cli.Result status = cli("get status");
    assertThat(status.out())
        .contains("trust:             NOT_SYNCED\n")
        .contains("stale:             true\n")
        .contains("synced at:         <never>\n")
        .contains("connected:         false\n")
        .contains("services:          1\n")
        .contains("endpoints:         2\n")
        .contains("version:           " + serve.table().version() + "\n");

    serve.freshness().heard(Instant.parse("2026-12-01T14:02:03.250Z"));
    trust.raise(TableTrust.Level.SYNCED);
    assertThat(cli("get status").out())
        .contains("trust:             SYNCED\n")
        .contains("stale:             false\n")
        .contains("synced at:         2026-12-01T14:02:03.250Z\n")
        .contains("connected:         true\n")
        .contains("disconnected for:  0s\n");
    JsonObject json = new JsonObject(cli("get status -o json").out());
    try (UdsHttp http = new UdsHttp(serve.socket())) {
      assertThat(http.get("/v1/status").json()).isEqualTo(json);
    }
    assertThat(json.getString("trust")).isEqualTo("SYNCED");
  }
}
