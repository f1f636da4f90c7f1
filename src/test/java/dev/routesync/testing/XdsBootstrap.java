package dev.routesync.testing;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.NameResolverRegistry;
import io.grpc.internal.JsonParser;
import io.grpc.xds.XdsNameResolverProvider;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * A gRPC xDS bootstrap file, as {@code routesync bootstrap} prints it for a workload, and channels
 * to {@code xds:///} targets that use it with grpc-java's own, unmodified xDS resolver.
 *
 * <p>grpc-java reads {@code GRPC_XDS_BOOTSTRAP} (or the system property {@code
 * io.grpc.xds.bootstrap}) once per process and caches the result ({@code
 * GrpcBootstrapperImpl.defaultBootstrap}), so tests with an agent each cannot use it. Instead the
 * file's content, parsed by grpc-java's own JSON parser as the resolver parses the file, goes to
 * the resolver through its test hook ({@link XdsNameResolverProvider#createForTest}), in a name
 * resolver registry of the channel's own. grpc-java shares one XdsClient per target among live
 * channels and drops it when the last one shuts down; each test shuts its channels down, so the
 * next test's channel builds a fresh XdsClient from its own bootstrap.
 */
public final class XdsBootstrap {

  private final Path file;
  private final String json;

  private XdsBootstrap(Path file, String json) {
    this.file = file;
    this.json = json;
  }

  /**
   * Where the test's gRPC clients reach the agent's ADS server: the Unix socket, with grpc-java's
   * default {@code :authority} (the socket's path, which serve/AnyAuthority accepts), as the
   * issue's "Done when" asks. {@code TCP} moves every interop test onto the loopback listener
   * instead.
   */
  public static final Transport TRANSPORT = Transport.SOCKET;

  /** How the bootstrap's {@code server_uri} reaches the agent. */
  public enum Transport {
    SOCKET,
    TCP
  }

  /** {@code server_uri} for an agent serving {@code socket} and, for TCP, {@code tcpPort}. */
  public static String serverUri(Path socket, int tcpPort) {
    return switch (TRANSPORT) {
      case SOCKET -> "unix://" + socket.toAbsolutePath();
      case TCP -> {
        if (tcpPort <= 0) {
          throw new IllegalStateException("the agent serves no TCP port (--listen-tcp)");
        }
        yield "localhost:" + tcpPort;
      }
    };
  }

  /**
   * Writes a bootstrap file into {@code dir}: one xDS server at {@code serverUri} with insecure
   * channel credentials and {@code xds_v3}, and a node with an id and a zone (grpc-js needs both;
   * grpc-java reads the zone to rank localities).
   */
  public static XdsBootstrap write(Path dir, String serverUri, String nodeId, String zone)
      throws IOException {
    String json =
        """
        {
          "xds_servers": [
            {
              "server_uri": "%s",
              "channel_creds": [{"type": "insecure"}],
              "server_features": ["xds_v3"]
            }
          ],
          "node": {
            "id": "%s",
            "locality": {"zone": "%s"}
          }
        }
        """
            .formatted(serverUri, nodeId, zone);
    Path file = dir.resolve("xds-bootstrap.json");
    Files.writeString(file, json, StandardCharsets.UTF_8);
    return new XdsBootstrap(file, json);
  }

  public Path file() {
    return file;
  }

  public String json() {
    return json;
  }

  /**
   * A plaintext channel to {@code target} (e.g. {@code xds:///cart.shop:8080}) whose xDS resolver
   * reads this bootstrap file, with grpc-java's DNS resolver beside it. The caller shuts it down.
   */
  @SuppressWarnings("unchecked")
  public ManagedChannel channel(String target) throws IOException {
    Map<String, ?> config =
        (Map<String, ?>) JsonParser.parse(Files.readString(file, StandardCharsets.UTF_8));
    NameResolverRegistry registry = new NameResolverRegistry();
    registry.register(XdsNameResolverProvider.createForTest("xds", config));
    // What an application's default registry holds beside it: a LOGICAL_DNS cluster (an
    // ExternalName Service) is resolved through the "dns" resolver.
    registry.register(new io.grpc.internal.DnsNameResolverProvider());
    return Grpc.newChannelBuilder(target, InsecureChannelCredentials.create(), registry).build();
  }
}
