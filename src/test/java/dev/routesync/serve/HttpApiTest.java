package dev.routesync.serve;

import static dev.routesync.testing.TableStates.states;
import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.table.Endpoint;
import dev.routesync.table.Port;
import dev.routesync.table.ServiceKey;
import dev.routesync.table.TableTrust;
import dev.routesync.table.TableWriter;
import dev.routesync.testing.UdsHttp;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The HTTP/JSON API over a real Unix socket, against a table the test controls. */
class HttpApiTest {

  @TempDir Path dir;

  private final TableWriter table = new TableWriter(Clock.systemUTC(), 16);
  private Vertx vertx;
  private SocketServer server;
  private UdsHttp http;

  @BeforeEach
  void start() throws Exception {
    vertx =
        Vertx.builder()
            .with(new io.vertx.core.VertxOptions().setPreferNativeTransport(true))
            .build();
    server =
        new SocketServer(
            vertx, dir.resolve("api.sock"), new HttpApi(table, TableTrust.synced()).router(vertx));
    server.listen().await(10, TimeUnit.SECONDS);
    http = new UdsHttp(dir.resolve("api.sock"));
    Port http8080 = new Port("http", 8080, "TCP");
    table.publish(
        states(
            Map.of(
                new ServiceKey("shop", "cart"),
                List.of(
                    new Endpoint(
                        "10.0.0.1",
                        List.of(http8080),
                        "zone-a",
                        "node-a",
                        "cart-1",
                        true,
                        true,
                        false),
                    new Endpoint(
                        "10.0.0.2", List.of(http8080), null, null, null, true, true, false)),
                new ServiceKey("shop", "empty"),
                List.of(),
                new ServiceKey("billing", "ledger"),
                List.of(
                    new Endpoint(
                        "10.0.1.1",
                        List.of(new Port("", 9000, "TCP")),
                        "z",
                        "n",
                        "l-1",
                        false,
                        true,
                        true)))),
        List.of());
  }

  @AfterEach
  void stop() throws Exception {
    http.close();
    server.close().await(10, TimeUnit.SECONDS);
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  @Test
  void listsEveryServiceWithTheTableVersionInKeyOrder() throws Exception {
    UdsHttp.Reply reply = http.get("/v1/services");
    assertThat(reply.status()).isEqualTo(200);
    assertThat(reply.contentType()).isEqualTo("application/json");
    JsonObject body = reply.json();
    // The proto3 JSON mapping (docs/api.md): 64-bit versions are strings.
    assertThat(body.getValue("version")).isEqualTo("1");
    JsonArray services = body.getJsonArray("services");
    assertThat(
            services.stream()
                .map(
                    s ->
                        ((JsonObject) s).getString("namespace")
                            + "/"
                            + ((JsonObject) s).getString("name")))
        .containsExactly("billing/ledger", "shop/cart", "shop/empty");
  }

  @Test
  void aLargeListIsStreamedAndIsTheSameDocumentAsOnePrintedWhole() throws Exception {
    Map<ServiceKey, List<Endpoint>> large = new java.util.LinkedHashMap<>();
    Port http8080 = new Port("http", 8080, "TCP");
    int perService = 500;
    for (int s = 0; s < 20; s++) { // 10,000 endpoints: past SMALL_ANSWER_ENDPOINTS, many chunks
      List<Endpoint> endpoints = new java.util.ArrayList<>();
      for (int e = 0; e < perService; e++) {
        endpoints.add(
            new Endpoint(
                "10.1." + s + "." + (e % 250) + (e >= 250 ? "0" : ""),
                List.of(http8080),
                "zone-a",
                "node-" + e,
                "pod-" + s + "-" + e,
                true,
                true,
                false));
      }
      large.put(new ServiceKey("big", "svc-" + s), endpoints);
    }
    table.publish(states(large), List.of());
    var snapshot = table.current();
    String whole =
        dev.routesync.api.ApiJson.compact(
            ProtoMapping.list(
                snapshot.version(),
                snapshot.servicesIn("big"),
                dev.routesync.table.Freshness.unwatched(TableTrust.synced())));
    assertThat(whole.length()).isGreaterThan(2 * ServicesAnswer.CHUNK_CHARS);

    UdsHttp.Reply reply = http.request("GET", "/v1/services?namespace=big");
    assertThat(reply.status()).isEqualTo(200);
    assertThat(reply.contentType()).isEqualTo("application/json");
    assertThat(reply.body()).isEqualTo(whole);
  }

  @Test
  void theSummaryCountsEachServicesEndpointsWithoutListingThem() throws Exception {
    JsonObject summary = http.get("/v1/summary").json();
    assertThat(summary.getInteger("services_total")).isEqualTo(3);
    assertThat(summary.getInteger("endpoints_total")).isEqualTo(3);
    JsonArray rows = summary.getJsonArray("services");
    assertThat(rows).hasSize(3);
    JsonObject cart = rows.getJsonObject(1); // key order: billing/ledger, shop/cart, shop/empty
    assertThat(cart.getString("name")).isEqualTo("cart");
    assertThat(cart.getInteger("endpoints")).isEqualTo(2);
    assertThat(cart.getInteger("ready")).isEqualTo(2);
    assertThat(cart.getInteger("terminating")).isZero();
    assertThat(cart.containsKey("topology")).isTrue();
    assertThat(rows.getJsonObject(0).getInteger("terminating")).isEqualTo(1);
    assertThat(http.get("/v1/summary?limit=1").json().getJsonArray("services")).hasSize(1);
    assertThat(http.get("/v1/summary?limit=501").status()).isEqualTo(400);
    assertThat(http.get("/v1/summary?limit=x").json().getString("error")).contains("limit");
  }

  @Test
  void filtersByNamespace() throws Exception {
    JsonObject body = http.get("/v1/services?namespace=shop").json();
    assertThat(body.getJsonArray("services")).hasSize(2);
    assertThat(http.get("/v1/services?namespace=nothing-here").json().getJsonArray("services"))
        .isEmpty();
  }

  @Test
  void servesOneServiceWithEveryEndpointField() throws Exception {
    JsonObject cart = http.get("/v1/services/shop/cart").json();
    assertThat(cart.getString("namespace")).isEqualTo("shop");
    assertThat(cart.getString("name")).isEqualTo("cart");
    assertThat(cart.getValue("version")).isEqualTo("1");
    JsonObject first = cart.getJsonArray("endpoints").getJsonObject(0);
    assertThat(first.fieldNames())
        .containsExactlyInAnyOrder(
            "ip",
            "ports",
            "zone",
            "node",
            "pod",
            "ready",
            "serving",
            "terminating",
            "selected",
            "addresses");
    // Hints are a message: absent when the endpoint has none.
    assertThat(first.getBoolean("selected")).isTrue();
    assertThat(first.getString("ip")).isEqualTo("10.0.0.1");
    // Every address, the primary first: one for a single-stack pod.
    assertThat(first.getJsonArray("addresses").getList()).containsExactly("10.0.0.1");
    assertThat(first.getJsonArray("ports").getJsonObject(0).getMap())
        .isEqualTo(Map.of("name", "http", "port", 8080, "protocol", "TCP"));
    assertThat(first.getString("zone")).isEqualTo("zone-a");
    assertThat(first.getString("node")).isEqualTo("node-a");
    assertThat(first.getString("pod")).isEqualTo("cart-1");
    assertThat(first.getBoolean("ready")).isTrue();
    JsonObject second = cart.getJsonArray("endpoints").getJsonObject(1);
    // Unknown is the field's default, printed: "", never null or absent.
    assertThat(second.getMap())
        .containsEntry("zone", "")
        .containsEntry("node", "")
        .containsEntry("pod", "");

    JsonObject ledger = http.get("/v1/services/billing/ledger").json();
    JsonObject draining = ledger.getJsonArray("endpoints").getJsonObject(0);
    assertThat(draining.getBoolean("terminating")).isTrue();
    assertThat(draining.getBoolean("serving")).isTrue();
    assertThat(draining.getBoolean("ready")).isFalse();
  }

  @Test
  void aServiceWithNoReadyEndpointIsServedEmpty() throws Exception {
    JsonObject empty = http.get("/v1/services/shop/empty").json();
    assertThat(empty.getJsonArray("endpoints")).isEmpty();
  }

  @Test
  void anExternalNameServiceIsNotFoundNamingItsExternalNameAndListedWithIt() throws Exception {
    table.publish(
        Map.of(
            new ServiceKey("shop", "alias"),
            new dev.routesync.table.ServiceState(
                List.of(),
                List.of(),
                dev.routesync.table.ServiceTraffic.of(null, false, false, "db.example.com"),
                dev.routesync.table.TopologyDecision.NONE)),
        List.of());

    UdsHttp.Reply alias = http.get("/v1/services/shop/alias");
    assertThat(alias.status()).isEqualTo(404);
    assertThat(alias.json().getString("error"))
        .contains("shop/alias")
        .contains("ExternalName")
        .contains("db.example.com");
    JsonArray listed = http.get("/v1/services").json().getJsonArray("services");
    JsonObject entry =
        listed.stream()
            .map(JsonObject.class::cast)
            .filter(s -> s.getString("name").equals("alias"))
            .findFirst()
            .orElseThrow();
    assertThat(entry.getString("external_name")).isEqualTo("db.example.com");
    JsonObject cart =
        listed.stream()
            .map(JsonObject.class::cast)
            .filter(s -> s.getString("name").equals("cart"))
            .findFirst()
            .orElseThrow();
    assertThat(cart.getString("external_name")).isEmpty();
  }

  @Test
  void aLocalServiceListsThisNodesDrainingPodAsChosenAndCountsOnlyReadyOnes() throws Exception {
    Port grpc = new Port("grpc", 8080, "TCP");
    // This node's pod is draining (still serving), node-b's is ready: this node uses its own.
    table.publish(
        Map.of(
            new ServiceKey("shop", "local"),
            dev.routesync.table.ServiceState.decided(
                List.of(
                    new Endpoint(
                        "10.0.2.1", List.of(grpc), "zone-a", "node-a", "l-1", false, true, true),
                    new Endpoint(
                        "10.0.2.2", List.of(grpc), "zone-a", "node-b", "l-2", true, true, false)),
                List.of(grpc),
                dev.routesync.table.ServiceTraffic.of(null, true),
                new dev.routesync.table.NodeLocality("node-a", "zone-a", null))),
        List.of());

    JsonObject local = http.get("/v1/services/shop/local").json();

    assertThat(local.getJsonObject("topology").getString("mode")).isEqualTo("LOCAL");
    assertThat(local.getJsonObject("topology").getString("reason"))
        .isEqualTo("local terminating fallback");
    assertThat(local.getJsonArray("endpoints").stream().map(JsonObject.class::cast))
        .extracting(
            e -> e.getString("ip"),
            e -> e.getBoolean("ready"),
            e -> e.getBoolean("serving"),
            e -> e.getBoolean("terminating"),
            e -> e.getBoolean("selected"))
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("10.0.2.1", false, true, true, true),
            org.assertj.core.groups.Tuple.tuple("10.0.2.2", true, true, false, false));
    // Ready counts stay ready counts: the draining pod is listed but not counted ready.
    assertThat(local.getJsonArray("port_counts").getJsonObject(0).getMap())
        .containsEntry("ready", 1)
        .containsEntry("listed", 1);
  }

  @Test
  void reflectsANewVersionAtOnce() throws Exception {
    table.publish(Map.of(), List.of(new ServiceKey("shop", "cart")));
    assertThat(http.get("/v1/services/shop/cart").status()).isEqualTo(404);
    assertThat(http.get("/v1/services").json().getValue("version")).isEqualTo("2");
  }

  @Test
  void answersErrorsWithJsonBodies() throws Exception {
    UdsHttp.Reply missing = http.get("/v1/services/shop/nope");
    assertThat(missing.status()).isEqualTo(404);
    assertThat(missing.contentType()).isEqualTo("application/json");
    assertThat(missing.json().getString("error")).contains("shop/nope");

    UdsHttp.Reply badName = http.get("/v1/services/Shop/cart");
    assertThat(badName.status()).isEqualTo(400);
    assertThat(badName.json().getInteger("status")).isEqualTo(400);

    UdsHttp.Reply badNamespace = http.get("/v1/services?namespace=no_underscores");
    assertThat(badNamespace.status()).isEqualTo(400);

    UdsHttp.Reply unknownPath = http.get("/v2/whatever");
    assertThat(unknownPath.status()).isEqualTo(404);
    assertThat(unknownPath.json().getString("error")).contains("/v2/whatever");

    UdsHttp.Reply wrongMethod = http.request("DELETE", "/v1/services/shop/cart");
    assertThat(wrongMethod.status()).isEqualTo(405);
    assertThat(wrongMethod.json().getString("error")).contains("DELETE");
  }

  @Test
  void malformedPercentEncodingIsABadRequestWithAJsonBody() throws Exception {
    for (String uri :
        List.of(
            "/v1/services?namespace=%ZZ",
            "/v1/services?namespace=%",
            "/v1/services?namespace=shop&x=%2",
            "/v1/services/%ZZ/cart",
            "/v1/services/shop/cart%")) {
      UdsHttp.Reply reply = http.get(uri);
      assertThat(reply.status()).as(uri).isEqualTo(400);
      assertThat(reply.contentType()).as(uri).isEqualTo("application/json");
      assertThat(reply.json().getInteger("status")).as(uri).isEqualTo(400);
      assertThat(reply.json().getString("error")).as(uri).contains("percent-encoding");
    }
    // The connection-level parser is fine with them: good requests still work.
    assertThat(http.get("/v1/services?namespace=shop").status()).isEqualTo(200);
  }

  @Test
  void socketIsGroupAccessibleOnlyAndRemovedOnClose() throws Exception {
    Path socket = dir.resolve("api.sock");
    assertThat(Files.getPosixFilePermissions(socket))
        .containsExactlyInAnyOrderElementsOf(
            java.nio.file.attribute.PosixFilePermissions.fromString("rw-rw----"));
    server.close().await(10, TimeUnit.SECONDS);
    assertThat(socket).doesNotExist();
  }
}
