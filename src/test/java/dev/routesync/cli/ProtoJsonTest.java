package dev.routesync.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.util.JsonFormat;
import dev.routesync.api.v1.ListResponse;
import dev.routesync.api.v1.WatchEvent;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

class ProtoJsonTest {

  @Test
  void prettyJsonParsesBackToTheSameMessage() throws Exception {
    String json = ProtoJson.pretty(Messages.list());

    ListResponse.Builder parsed = ListResponse.newBuilder();
    JsonFormat.parser().merge(json, parsed);
    assertThat(parsed.build()).isEqualTo(Messages.list());
    assertThat(json).endsWith("}\n");
  }

  @Test
  void aJsonLineIsOneLineThatParsesBackToTheSameEvent() throws Exception {
    String line = ProtoJson.line(Messages.change());

    assertThat(line).endsWith("\n");
    assertThat(line.strip()).doesNotContain("\n");
    WatchEvent.Builder parsed = WatchEvent.newBuilder();
    JsonFormat.parser().merge(line, parsed);
    assertThat(parsed.build()).isEqualTo(Messages.change());
  }

  @Test
  void printsFieldsAtTheirDefaultSoScriptsSeeEveryKey() {
    JsonObject endpoint =
        new JsonObject(ProtoJson.pretty(Messages.cart()))
            .getJsonArray("endpoints")
            .getJsonObject(2);

    assertThat(endpoint.getString("ip")).isEqualTo("10.1.0.9");
    assertThat(endpoint.getString("zone")).isEmpty();
    assertThat(endpoint.getBoolean("ready")).isFalse();
    assertThat(endpoint.getBoolean("terminating")).isTrue();
  }

  @Test
  void usesTheProtoJsonNamesAndPrintsVersionsAsStrings() {
    JsonObject event = new JsonObject(ProtoJson.line(Messages.snapshot()));

    assertThat(event.getString("version")).isEqualTo("42");
    assertThat(event.getBoolean("reset")).isTrue();
    assertThat(event.getJsonArray("upserted")).hasSize(2);
    assertThat(event.getJsonArray("removed")).isEmpty();
  }
}
