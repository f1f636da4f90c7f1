package dev.routesync.bootstrap;

import dev.routesync.table.KubernetesNames;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.Objects;

/**
 * The bootstrap file of gRPC's {@code xds:///} resolver (gRFC A27), pointing at the agent's socket.
 *
 * <p>What the clients require, checked against their parsers: grpc-java needs {@code xds_servers}
 * with a {@code server_uri} and {@code channel_creds} of a type it knows; grpc-js ({@code
 * @grpc/grpc-js-xds}) needs {@code node.id} and {@code node.locality} (an empty object will do), so
 * the locality is always written and its {@code zone} only when known.
 *
 * <p>{@code server_features} is {@code ["xds_v3"]}: the feature the older C-core and grpc-go
 * releases needed to speak xDS v3 (newer ones, grpc-java and grpc-js ignore it). It has no {@code
 * ignore_resource_deletion}: with that feature a client keeps using a Listener or Cluster the server
 * has removed, and the agent removes a Service's resources precisely so that calls to a deleted
 * Service fail fast.
 *
 * @param socket the agent's Unix socket
 * @param nodeId {@code node.id}: this node's name
 * @param locality {@code node.locality}
 */
public record GrpcBootstrap(Path socket, String nodeId, Locality locality) {

  public GrpcBootstrap {
    Objects.requireNonNull(socket, "socket");
    Objects.requireNonNull(nodeId, "nodeId");
    Objects.requireNonNull(locality, "locality");
    KubernetesNames.requireNodeName(nodeId);
    serverUri(socket); // fails early on a path no client could parse
  }

  /** The bootstrap, pretty-printed, ending with a newline. */
  public String json() {
    JsonObject server =
        new JsonObject()
            .put("server_uri", serverUri(socket))
            .put("channel_creds", new JsonArray().add(new JsonObject().put("type", "insecure")))
            .put("server_features", new JsonArray().add("xds_v3"));
    JsonObject node = new JsonObject().put("id", nodeId).put("locality", localityJson(locality));
    return new JsonObject()
            .put("xds_servers", new JsonArray().add(server))
            .put("node", node)
            .encodePrettily()
        + "\n";
  }

  /** {@code {}} or {@code {"zone": ...}}: the form both gRPC parsers read. */
  static JsonObject localityJson(Locality locality) {
    JsonObject json = new JsonObject();
    locality.zone().ifPresent(zone -> json.put("zone", zone));
    return json;
  }

  /**
   * {@code unix:///absolute/path}, gRPC's name for a Unix socket. A relative path is made absolute:
   * the client may run in another directory. The clients differ on percent-decoding the path
   * (grpc-js does not), so a path that would need escaping in a URI is refused rather than escaped.
   */
  static String serverUri(Path socket) {
    String path = socket.toAbsolutePath().normalize().toString();
    for (int i = 0; i < path.length(); i++) {
      char c = path.charAt(i);
      boolean plain =
          (c >= 'a' && c <= 'z')
              || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9')
              || "/-._~+,=@".indexOf(c) >= 0;
      if (!plain) {
        throw new IllegalArgumentException(
            "--socket "
                + path
                + ": the character '"
                + c
                + "' would need escaping in the unix:// URI, which gRPC clients do not all"
                + " decode; use a path of letters, digits and / - . _ ~ + , = @");
      }
    }
    return "unix://" + path;
  }
}
