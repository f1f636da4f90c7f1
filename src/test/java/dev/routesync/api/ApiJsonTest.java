package dev.routesync.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.util.JsonFormat;
import dev.routesync.api.v1.Endpoint;
import dev.routesync.api.v1.ListResponse;
import dev.routesync.api.v1.Port;
import dev.routesync.api.v1.ServiceEndpoints;
import dev.routesync.api.v1.ServiceRef;
import dev.routesync.api.v1.WatchEvent;
import dev.routesync.api.v1.WatchRequest;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

class ApiJsonTest {

  private static final Port HTTP =
      Port.newBuilder().setName("http").setPort(8080).setProtocol("TCP").build();

  /** shop/cart: one ready endpoint, and one terminating with no zone, node or pod. */
  private static final ServiceEndpoints CART =
      ServiceEndpoints.newBuilder()
          .setNamespace("shop")
          .setName("cart")
          .setVersion(40)
          .addEndpoints(
              Endpoint.newBuilder()
                  .setIp("10.1.0.11")
                  .addPorts(HTTP)
                  .setZone("zone-a")
                  .setNode("node-a")
                  .setPod("cart-1")
                  .setReady(true)
                  .setServing(true))
          .addEndpoints(
              Endpoint.newBuilder()
                  .setIp("10.1.0.9")
                  .addPorts(HTTP)
                  .setServing(true)
                  .setTerminating(true))
          .build();

  private static final ListResponse LIST =
      ListResponse.newBuilder()
          .setVersion(42)
          .addServices(
              ServiceEndpoints.newBuilder().setNamespace("billing").setName("ledger").setVersion(7))
          .addServices(CART)
          .build();

  @Test
  void prettyJsonParsesBackToTheSameMessage() throws Exception {
    String json = ApiJson.pretty(LIST);

    ListResponse.Builder parsed = ListResponse.newBuilder();
    JsonFormat.parser().merge(json, parsed);
    assertThat(parsed.build()).isEqualTo(LIST);
    assertThat(json).contains("\n  ").endsWith("}\n");
  }

  @Test
  void aJsonLineIsOneLineThatParsesBackToTheSameEvent() throws Exception {
    WatchEvent change =
        WatchEvent.newBuilder()
            .setVersion(43)
            .addUpserted(CART)
            .addRemoved(ServiceRef.newBuilder().setNamespace("billing").setName("ledger"))
            .build();
    String line = ApiJson.line(change);

    assertThat(line).endsWith("}\n");
    assertThat(line.strip()).doesNotContain("\n");
    WatchEvent.Builder parsed = WatchEvent.newBuilder();
    JsonFormat.parser().merge(line, parsed);
    assertThat(parsed.build()).isEqualTo(change);
  }

  @Test
  void compactIsTheLineWithoutItsNewline() {
    assertThat(ApiJson.compact(LIST) + "\n").isEqualTo(ApiJson.line(LIST));
    assertThat(new JsonObject(ApiJson.compact(LIST)))
        .isEqualTo(new JsonObject(ApiJson.pretty(LIST)));
  }

  @Test
  void printsFieldsAtTheirDefaultSoScriptsSeeEveryKey() {
    JsonObject service = new JsonObject(ApiJson.compact(CART));
    JsonObject terminating = service.getJsonArray("endpoints").getJsonObject(1);

    assertThat(terminating.getMap())
        .containsEntry("ip", "10.1.0.9")
        .containsEntry("zone", "")
        .containsEntry("node", "")
        .containsEntry("pod", "")
        .containsEntry("ready", false)
        .containsEntry("serving", true)
        .containsEntry("terminating", true);
    JsonObject ledger =
        new JsonObject(ApiJson.compact(LIST)).getJsonArray("services").getJsonObject(0);
    assertThat(ledger.getJsonArray("endpoints")).isEmpty();
    WatchEvent quiet = WatchEvent.newBuilder().setVersion(9).build();
    assertThat(new JsonObject(ApiJson.compact(quiet)).getMap())
        .containsEntry("reset", false)
        .containsKeys("upserted", "removed");
  }

  @Test
  void printsSixtyFourBitVersionsAsStringsAndPortsAsNumbers() {
    JsonObject list = new JsonObject(ApiJson.compact(LIST));

    assertThat(list.getValue("version")).isEqualTo("42");
    JsonObject cart = list.getJsonArray("services").getJsonObject(1);
    assertThat(cart.getValue("version")).isEqualTo("40");
    assertThat(cart.getJsonArray("endpoints").getJsonObject(0).getJsonArray("ports").getValue(0))
        .isEqualTo(new JsonObject().put("name", "http").put("port", 8080).put("protocol", "TCP"));
    // Past 2^53, where a JSON number would be rounded by a JavaScript client.
    long big = (1L << 53) + 1;
    assertThat(
            new JsonObject(ApiJson.compact(WatchEvent.newBuilder().setVersion(big)))
                .getValue("version"))
        .isEqualTo("9007199254740993");
  }

  @Test
  void usesTheFieldNamesOfTheProtoFile() {
    WatchRequest request = WatchRequest.newBuilder().setResumeFromVersion(5).build();

    assertThat(new JsonObject(ApiJson.compact(request)).fieldNames())
        .containsExactlyInAnyOrder("namespace", "services", "resume_from_version", "client_name");
  }
}
