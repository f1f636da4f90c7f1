package dev.routesync.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.util.JsonFormat;
import io.envoyproxy.envoy.config.bootstrap.v3.Bootstrap;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.config.core.v3.ApiConfigSource;
import io.envoyproxy.envoy.config.core.v3.ApiVersion;
import io.envoyproxy.envoy.config.core.v3.ConfigSource;
import io.envoyproxy.envoy.extensions.upstreams.http.v3.HttpProtocolOptions;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The Envoy bootstrap, read back into the Envoy API's own {@code Bootstrap} message with protobuf's
 * strict JSON parser: a misspelt field, enum or {@code @type} fails here as it would in Envoy. (No
 * Envoy binary could be installed to run it; Envoy's own validation rules are checked by hand.)
 */
class EnvoyBootstrapTest {

  private static final Path SOCKET = Path.of("/var/run/routesync/routesync.sock");

  private static Bootstrap parse(String json) throws Exception {
    Bootstrap.Builder builder = Bootstrap.newBuilder();
    JsonFormat.parser()
        .usingTypeRegistry(
            JsonFormat.TypeRegistry.newBuilder().add(HttpProtocolOptions.getDescriptor()).build())
        .merge(json, builder);
    return builder.build();
  }

  @Test
  void adsOverTheSocketWithCdsAndLdsFromIt() throws Exception {
    Bootstrap bootstrap =
        parse(new EnvoyBootstrap(SOCKET, "node-a", "shop", Locality.zone("z1"), true).json());

    assertThat(bootstrap.getNode().getId()).isEqualTo("node-a");
    assertThat(bootstrap.getNode().getCluster()).isEqualTo("shop");
    assertThat(bootstrap.getNode().getLocality().getZone()).isEqualTo("z1");

    ApiConfigSource ads = bootstrap.getDynamicResources().getAdsConfig();
    assertThat(ads.getApiType()).isEqualTo(ApiConfigSource.ApiType.DELTA_GRPC);
    assertThat(ads.getTransportApiVersion()).isEqualTo(ApiVersion.V3);
    assertThat(ads.getGrpcServicesList()).hasSize(1);
    assertThat(ads.getGrpcServices(0).getEnvoyGrpc().getClusterName()).isEqualTo("routesync");
    for (ConfigSource source :
        new ConfigSource[] {
          bootstrap.getDynamicResources().getCdsConfig(),
          bootstrap.getDynamicResources().getLdsConfig()
        }) {
      assertThat(source.hasAds()).isTrue();
      assertThat(source.getResourceApiVersion()).isEqualTo(ApiVersion.V3);
    }

    assertThat(bootstrap.getStaticResources().getClustersList()).hasSize(1);
    Cluster agent = bootstrap.getStaticResources().getClusters(0);
    assertThat(agent.getName()).isEqualTo("routesync");
    assertThat(agent.getType()).isEqualTo(Cluster.DiscoveryType.STATIC);
    assertThat(agent.getLoadAssignment().getClusterName()).isEqualTo("routesync");
    assertThat(agent.getLoadAssignment().getEndpointsList()).hasSize(1);
    assertThat(agent.getLoadAssignment().getEndpoints(0).getLbEndpointsList()).hasSize(1);
    assertThat(
            agent
                .getLoadAssignment()
                .getEndpoints(0)
                .getLbEndpoints(0)
                .getEndpoint()
                .getAddress()
                .getPipe()
                .getPath())
        .isEqualTo("/var/run/routesync/routesync.sock");
    // gRPC needs HTTP/2 to the agent; Envoy's default upstream protocol is HTTP/1.1.
    HttpProtocolOptions http =
        agent
            .getTypedExtensionProtocolOptionsOrThrow(
                "envoy.extensions.upstreams.http.v3.HttpProtocolOptions")
            .unpack(HttpProtocolOptions.class);
    assertThat(http.getExplicitHttpConfig().hasHttp2ProtocolOptions()).isTrue();
  }

  @Test
  void noDeltaIsStateOfTheWorld() throws Exception {
    Bootstrap bootstrap =
        parse(new EnvoyBootstrap(SOCKET, "node-a", "shop", Locality.unknown(), false).json());

    assertThat(bootstrap.getDynamicResources().getAdsConfig().getApiType())
        .isEqualTo(ApiConfigSource.ApiType.GRPC);
    // Envoy does not need a locality: none is written without a zone.
    assertThat(bootstrap.getNode().hasLocality()).isFalse();
  }

  @Test
  void envoyRequiresNodeCluster() {
    assertThatThrownBy(() -> new EnvoyBootstrap(SOCKET, "node-a", " ", Locality.unknown(), true))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--cluster");
  }
}
