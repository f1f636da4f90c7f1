package dev.routesync.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.internal.JsonParser;
import io.grpc.xds.InternalGrpcBootstrapperImpl;
import io.grpc.xds.client.Bootstrapper.BootstrapInfo;
import io.grpc.xds.client.Bootstrapper.ServerInfo;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class GrpcBootstrapTest {

  private static final Path SOCKET = Path.of("/var/run/routesync/routesync.sock");

  @Test
  void pointsAtTheSocketWithInsecureCredentialsAndTheV3Feature() {
    JsonObject json =
        new JsonObject(new GrpcBootstrap(SOCKET, "node-a", Locality.zone("zone-1")).json());

    assertThat(json.fieldNames()).containsExactly("xds_servers", "node");
    assertThat(json.getJsonArray("xds_servers")).hasSize(1);
    JsonObject server = json.getJsonArray("xds_servers").getJsonObject(0);
    assertThat(server.getString("server_uri"))
        .isEqualTo("unix:///var/run/routesync/routesync.sock");
    assertThat(server.getJsonArray("channel_creds").getList())
        .containsExactly(Map.of("type", "insecure"));
    // Only xds_v3: ignore_resource_deletion would keep a deleted Service routable on the client.
    assertThat(server.getJsonArray("server_features").getList()).containsExactly("xds_v3");
    assertThat(json.getJsonObject("node").getMap())
        .isEqualTo(Map.of("id", "node-a", "locality", Map.of("zone", "zone-1")));
  }

  @Test
  void anUnknownZoneStillWritesTheLocalityThatGrpcJsRequires() {
    JsonObject json =
        new JsonObject(new GrpcBootstrap(SOCKET, "node-a", Locality.unknown()).json());

    JsonObject node = json.getJsonObject("node");
    assertThat(node.fieldNames()).containsExactly("id", "locality");
    assertThat(node.getJsonObject("locality").isEmpty()).isTrue();
  }

  @Test
  void grpcJavasOwnBootstrapParserAcceptsIt() throws Exception {
    // grpc-xds 1.85.1's parser, as the xds:/// resolver runs it on GRPC_XDS_BOOTSTRAP's file.
    BootstrapInfo info = parse(new GrpcBootstrap(SOCKET, "node-a", Locality.zone("zone-1")).json());

    assertThat(info.servers()).hasSize(1);
    ServerInfo server = info.servers().get(0);
    assertThat(server.target()).isEqualTo("unix:///var/run/routesync/routesync.sock");
    assertThat(server.ignoreResourceDeletion()).isFalse();
    assertThat(info.node().getId()).isEqualTo("node-a");
    // As the client will send it in its DiscoveryRequests' node.
    assertThat(info.node().toEnvoyProtoNode().getLocality().getZone()).isEqualTo("zone-1");
    assertThat(info.node().toEnvoyProtoNode().getLocality().getRegion()).isEmpty();

    BootstrapInfo withoutZone =
        parse(new GrpcBootstrap(SOCKET, "node-a", Locality.unknown()).json());
    assertThat(withoutZone.node().getId()).isEqualTo("node-a");
    assertThat(withoutZone.node().toEnvoyProtoNode().getLocality().getZone()).isEmpty();
  }

  @SuppressWarnings("unchecked")
  private static BootstrapInfo parse(String json) throws Exception {
    return InternalGrpcBootstrapperImpl.parseBootstrap((Map<String, ?>) JsonParser.parse(json));
  }

  @Test
  void aRelativeSocketBecomesAbsoluteForClientsInOtherDirectories() {
    String uri = GrpcBootstrap.serverUri(Path.of("run/../agent.sock"));

    assertThat(uri).isEqualTo("unix://" + Path.of("agent.sock").toAbsolutePath().normalize());
    assertThat(uri).startsWith("unix:///");
  }

  @Test
  void aSocketPathThatWouldNeedEscapingIsRefusedNotEscaped() {
    for (String path : List.of("/tmp/a b.sock", "/tmp/a%20b.sock", "/tmp/a?b", "/tmp/é.sock")) {
      assertThatThrownBy(() -> GrpcBootstrap.serverUri(Path.of(path)))
          .as(path)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("--socket")
          .hasMessageContaining("escaping");
    }
  }

  @Test
  void theNodeNameMustBeANodeName() {
    assertThatThrownBy(() -> new GrpcBootstrap(SOCKET, "Node_A", Locality.unknown()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("DNS-1123 subdomain");
  }

  @Test
  void aZoneMustBeALabelValue() {
    assertThat(Locality.zone("us-east-1a").zone()).contains("us-east-1a");
    assertThat(Locality.zone("Zone_1.b").zone()).contains("Zone_1.b");
    for (String zone : List.of("", "-a", "a-", "a b", "a/b", "x".repeat(64))) {
      assertThatThrownBy(() -> Locality.zone(zone))
          .as("'%s'", zone)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("label value");
    }
  }
}
