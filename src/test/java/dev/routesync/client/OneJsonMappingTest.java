package dev.routesync.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.table.Endpoint;
import dev.routesync.table.EndpointHints;
import dev.routesync.table.NodeLocality;
import dev.routesync.table.Port;
import dev.routesync.table.ServiceState;
import dev.routesync.table.ServiceTraffic;
import dev.routesync.testing.ServeHarness;
import dev.routesync.testing.UdsHttp;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code curl /v1/services...} and {@code routesync get ... -o json} print the same JSON for the
 * same table: both are the proto3 JSON mapping of the {@code routesync.v1} messages (docs/api.md,
 * "HTTP API").
 */
@Timeout(60)
class OneJsonMappingTest {

  private static ServeHarness serve;
  private static UdsHttp http;

  @BeforeAll
  static void start() throws Exception {
    serve = new ServeHarness();
    serve.put("shop", "cart", 3);
    serve.put("billing", "ledger", 1);
    // Unknown zone, node and pod; not ready but serving and terminating: every field at its
    // default or unset somewhere.
    serve.put(
        "shop",
        "draining",
        List.of(
            new Endpoint(
                "10.0.9.1",
                List.of(new Port("", 9000, "UDP")),
                null,
                null,
                null,
                false,
                true,
                true)));
    serve.put("shop", "empty", List.of());
    // The seed-002 incident: ready endpoints without ports behind a Service port named http.
    serve.put(
        "shop",
        "quote",
        new ServiceState(
            List.of(
                new Endpoint("10.0.8.1", List.of(), null, null, "quote-1", true, true, false),
                new Endpoint("10.0.8.2", List.of(), null, null, "quote-2", true, true, false)),
            List.of(new Port("http", 80, "TCP"))));
    // Zoned, with hints, decided for node-1 in zone-a (PreferClose): same-zone.
    NodeLocality here = new NodeLocality("node-1", "zone-a", "region-1");
    serve.put(
        "shop",
        "zoned",
        ServiceState.decided(
            List.of(
                new Endpoint(
                    "10.0.7.1",
                    List.of(new Port("http", 8080, "TCP")),
                    "zone-a",
                    EndpointHints.of(List.of("zone-a"), List.of()),
                    "node-1",
                    "zoned-1",
                    true,
                    true,
                    false),
                new Endpoint(
                    "10.0.7.2",
                    List.of(new Port("http", 8080, "TCP")),
                    "zone-b",
                    EndpointHints.of(List.of("zone-b"), List.of()),
                    "node-2",
                    "zoned-2",
                    true,
                    true,
                    false)),
            List.of(new Port("http", 80, "TCP")),
            ServiceTraffic.of("PreferClose", false),
            here));
    // internalTrafficPolicy Local and nothing on node-1.
    serve.put(
        "shop",
        "local",
        ServiceState.decided(
            List.of(
                new Endpoint(
                    "10.0.6.1", List.of(), "zone-b", "node-2", "local-1", true, true, false)),
            List.of(),
            ServiceTraffic.of(null, true),
            here));
    // A dual-stack pod of an IPv6-first Service, beside a single-stack one.
    serve.put(
        "shop",
        "dual",
        new ServiceState(
            List.of(
                new Endpoint(
                        "fd00::1",
                        List.of(new Port("http", 8080, "TCP")),
                        "zone-a",
                        "node-1",
                        "dual-1",
                        true,
                        true,
                        false)
                    .withAdditionalAddresses(List.of("10.0.5.1")),
                new Endpoint(
                    "fd00::2",
                    List.of(new Port("http", 8080, "TCP")),
                    "zone-a",
                    "node-1",
                    "dual-2",
                    true,
                    true,
                    false)),
            List.of(new Port("http", 80, "TCP")),
            ServiceTraffic.of(null, false, true),
            dev.routesync.table.TopologyDecision.NONE));
    http = new UdsHttp(serve.socket());
  }

  @AfterAll
  static void stop() throws Exception {
    http.close();
    serve.close();
  }

  private static JsonObject cli(String args) {
    Cli.Result result = Cli.run((args + " -o json --socket " + serve.socket()).split(" "));
    assertThat(result.exitCode()).as(result.err()).isEqualTo(0);
    return new JsonObject(result.out());
  }

  private static JsonObject curl(String uri) throws Exception {
    UdsHttp.Reply reply = http.get(uri);
    assertThat(reply.status()).as(reply.body()).isEqualTo(200);
    return reply.json();
  }

  @Test
  void theServiceListIsTheSameOverHttpAndFromTheCli() throws Exception {
    assertThat(curl("/v1/services")).isEqualTo(cli("get services"));
    assertThat(curl("/v1/services?namespace=shop")).isEqualTo(cli("get services -n shop"));
    assertThat(curl("/v1/services?namespace=nothing-here"))
        .isEqualTo(cli("get services -n nothing-here"));
  }

  @Test
  void oneServiceIsTheSameOverHttpAndFromTheCli() throws Exception {
    for (String service :
        List.of(
            "shop/cart",
            "billing/ledger",
            "shop/draining",
            "shop/empty",
            "shop/quote",
            "shop/zoned",
            "shop/local",
            "shop/dual")) {
      assertThat(curl("/v1/services/" + service))
          .as(service)
          .isEqualTo(cli("get endpoints " + service));
    }
  }

  @Test
  void versionsAreStringsAndUnknownValuesTheirEmptyDefault() throws Exception {
    JsonObject list = curl("/v1/services");
    assertThat(list.getValue("version")).isEqualTo(String.valueOf(serve.table().version()));

    JsonObject draining = curl("/v1/services/shop/draining");
    assertThat(draining.getValue("version")).isInstanceOf(String.class);
    JsonObject endpoint = draining.getJsonArray("endpoints").getJsonObject(0);
    assertThat(endpoint.getMap())
        .containsEntry("zone", "")
        .containsEntry("node", "")
        .containsEntry("pod", "")
        .containsEntry("ready", false);
    // 32-bit numbers stay JSON numbers; an empty port name is "" too.
    assertThat(endpoint.getJsonArray("ports").getJsonObject(0).getMap())
        .containsEntry("name", "")
        .containsEntry("port", 9000)
        .containsEntry("protocol", "UDP");
  }

  @Test
  void portCountsAreSnakeCaseWithEveryFieldPrintedAlsoAtZero() throws Exception {
    JsonObject quote = curl("/v1/services/shop/quote");

    assertThat(quote.getJsonArray("port_counts").getJsonObject(0).getMap())
        .containsExactlyInAnyOrderEntriesOf(
            java.util.Map.of(
                "name", "http", "port", 80, "protocol", "TCP", "ready", 0, "listed", 2));
    // A Service without ports has an empty list, not a missing field.
    assertThat(curl("/v1/services/shop/empty").getJsonArray("port_counts")).isEmpty();
  }

  @Test
  void theTopologyDecisionAndHintsFollowTheProto3JsonMapping() throws Exception {
    JsonObject zoned = curl("/v1/services/shop/zoned");

    assertThat(zoned.getJsonObject("topology").getMap())
        .containsExactlyInAnyOrderEntriesOf(
            java.util.Map.of(
                "mode", "SAME_ZONE",
                "reason", "",
                "node", "node-1",
                "zone", "zone-a",
                "traffic_distribution", "PreferClose",
                "internal_traffic_policy", "Cluster"));
    JsonObject first = zoned.getJsonArray("endpoints").getJsonObject(0);
    assertThat(first.getJsonObject("hints").getJsonArray("for_zones").getList())
        .containsExactly("zone-a");
    assertThat(first.getJsonObject("hints").getJsonArray("for_nodes").getList()).isEmpty();
    assertThat(first.getBoolean("selected")).isTrue();
    assertThat(zoned.getJsonArray("endpoints").getJsonObject(1).getBoolean("selected")).isFalse();

    JsonObject local = curl("/v1/services/shop/local");
    assertThat(local.getJsonObject("topology").getString("mode")).isEqualTo("NO_LOCAL_ENDPOINT");
    assertThat(local.getJsonObject("topology").getString("reason"))
        .isEqualTo("no node-local endpoint");
    assertThat(local.getJsonArray("endpoints").getJsonObject(0).getBoolean("selected")).isFalse();
    // No hints: the field is absent (a message field at its default).
    assertThat(local.getJsonArray("endpoints").getJsonObject(0).containsKey("hints")).isFalse();
  }

  @Test
  void everyAddressIsListedPrimaryFirstAndWideShowsThem() throws Exception {
    JsonObject dual = curl("/v1/services/shop/dual");

    JsonObject first = dual.getJsonArray("endpoints").getJsonObject(0);
    assertThat(first.getString("ip")).isEqualTo("fd00::1");
    assertThat(first.getJsonArray("addresses").getList()).containsExactly("fd00::1", "10.0.5.1");
    JsonObject second = dual.getJsonArray("endpoints").getJsonObject(1);
    assertThat(second.getJsonArray("addresses").getList()).containsExactly("fd00::2");

    Cli.Result wide =
        Cli.run(("get endpoints shop/dual -o wide --socket " + serve.socket()).split(" "));
    assertThat(wide.exitCode()).as(wide.err()).isZero();
    assertThat(wide.out().lines().filter(l -> l.startsWith("IP ")))
        .singleElement()
        .satisfies(l -> assertThat(l).contains("ADDRESSES"));
    assertThat(wide.out().lines().filter(l -> l.startsWith("fd00::1 ")))
        .singleElement()
        .satisfies(l -> assertThat(l).contains("fd00::1,10.0.5.1"));
    // The default table keeps one column per fact: the primary address.
    Cli.Result table = Cli.run(("get endpoints shop/dual --socket " + serve.socket()).split(" "));
    assertThat(table.out()).doesNotContain("10.0.5.1");
  }

  @Test
  void getEndpointsWideShowsTheDecisionHintsAndTheChosenSet() {
    Cli.Result zoned =
        Cli.run(("get endpoints shop/zoned -o wide --socket " + serve.socket()).split(" "));
    assertThat(zoned.exitCode()).as(zoned.err()).isZero();
    assertThat(zoned.out())
        .contains(
            "Topology: same-zone (node node-1, zone zone-a; trafficDistribution PreferClose,"
                + " internalTrafficPolicy Cluster)");
    assertThat(zoned.out().lines().filter(l -> l.startsWith("10.0.7.1")))
        .singleElement()
        .satisfies(l -> assertThat(l).contains("zones=zone-a").endsWith("true"));
    assertThat(zoned.out().lines().filter(l -> l.startsWith("10.0.7.2")))
        .singleElement()
        .satisfies(l -> assertThat(l).contains("zones=zone-b").endsWith("false"));

    Cli.Result local =
        Cli.run(("get endpoints shop/local -o wide --socket " + serve.socket()).split(" "));
    assertThat(local.exitCode()).as(local.err()).isZero();
    assertThat(local.out())
        .contains(
            "Topology: no-local-endpoint: no node-local endpoint (node node-1, zone zone-a;"
                + " trafficDistribution unset, internalTrafficPolicy Local)");
  }
}
