package dev.routesync.bootstrap;

import dev.routesync.table.KubernetesNames;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.Objects;

/**
 * An Envoy bootstrap (JSON, which Envoy reads as it reads YAML) that takes listeners and clusters
 * from the agent over ADS: a static cluster {@value #ADS_CLUSTER} reaching the agent's socket
 * through a pipe address with HTTP/2 (gRPC), and {@code dynamic_resources} whose CDS and LDS come
 * over that one ADS stream. Envoy requires {@code node.id} and {@code node.cluster}.
 *
 * <p>Not verified against an Envoy binary (none is installable here); the test parses it into the
 * Envoy API's own {@code Bootstrap} message, which catches any misspelt field or enum.
 *
 * @param socket the agent's Unix socket
 * @param nodeId {@code node.id}: this node's name
 * @param cluster {@code node.cluster}: the service cluster this Envoy runs for
 * @param locality {@code node.locality}, written only when the zone is known
 * @param delta whether ADS is the incremental protocol ({@code DELTA_GRPC}) or state of the world
 *     ({@code GRPC})
 */
public record EnvoyBootstrap(
    Path socket, String nodeId, String cluster, Locality locality, boolean delta) {

  /** The name of the static cluster that reaches the agent. */
  public static final String ADS_CLUSTER = "routesync";

  public EnvoyBootstrap {
    Objects.requireNonNull(socket, "socket");
    Objects.requireNonNull(nodeId, "nodeId");
    Objects.requireNonNull(cluster, "cluster");
    Objects.requireNonNull(locality, "locality");
    if (cluster.isBlank()) {
      throw new IllegalArgumentException(
          "--cluster must not be empty: Envoy requires node.cluster");
    }
    KubernetesNames.requireNodeName(nodeId);
    GrpcBootstrap.serverUri(socket); // the same socket rule, so that both outputs accept one path
  }

  /** The bootstrap, pretty-printed, ending with a newline. */
  public String json() {
    JsonObject node = new JsonObject().put("id", nodeId).put("cluster", cluster);
    if (locality.zone().isPresent()) {
      node.put("locality", GrpcBootstrap.localityJson(locality));
    }
    JsonObject ads =
        new JsonObject()
            .put("api_type", delta ? "DELTA_GRPC" : "GRPC")
            .put("transport_api_version", "V3")
            .put(
                "grpc_services",
                new JsonArray()
                    .add(
                        new JsonObject()
                            .put("envoy_grpc", new JsonObject().put("cluster_name", ADS_CLUSTER))));
    JsonObject dynamic =
        new JsonObject()
            .put("ads_config", ads)
            .put("cds_config", overAds())
            .put("lds_config", overAds());
    return new JsonObject()
            .put("node", node)
            .put("dynamic_resources", dynamic)
            .put("static_resources", new JsonObject().put("clusters", new JsonArray().add(agent())))
            .encodePrettily()
        + "\n";
  }

  private static JsonObject overAds() {
    return new JsonObject().put("ads", new JsonObject()).put("resource_api_version", "V3");
  }

  /** The agent's socket as a cluster: one pipe endpoint, spoken to in HTTP/2 as gRPC needs. */
  private JsonObject agent() {
    String http = "envoy.extensions.upstreams.http.v3.HttpProtocolOptions";
    JsonObject protocol =
        new JsonObject()
            .put("@type", "type.googleapis.com/" + http)
            .put(
                "explicit_http_config",
                new JsonObject().put("http2_protocol_options", new JsonObject()));
    JsonObject pipe =
        new JsonObject()
            .put(
                "endpoint",
                new JsonObject()
                    .put(
                        "address",
                        new JsonObject()
                            .put(
                                "pipe",
                                new JsonObject()
                                    .put("path", socket.toAbsolutePath().normalize().toString()))));
    return new JsonObject()
        .put("name", ADS_CLUSTER)
        .put("type", "STATIC")
        .put("typed_extension_protocol_options", new JsonObject().put(http, protocol))
        .put(
            "load_assignment",
            new JsonObject()
                .put("cluster_name", ADS_CLUSTER)
                .put(
                    "endpoints",
                    new JsonArray()
                        .add(new JsonObject().put("lb_endpoints", new JsonArray().add(pipe)))));
  }
}
