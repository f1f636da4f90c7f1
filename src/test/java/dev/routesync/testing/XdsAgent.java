package dev.routesync.testing;

import dev.routesync.config.AgentConfig;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * Agents for the xDS tests: the harness's agent (fast timings, drift detector off) on a socket the
 * test chooses and also on loopback TCP ({@code --listen-tcp}, which the command line only allows
 * with {@code --listen-tcp-insecure}; configurations built in code take the address as it is), so a
 * restarted agent comes back at the same socket and port.
 */
public final class XdsAgent {

  private XdsAgent() {}

  /** Starts an agent on {@code socket} and {@code 127.0.0.1:tcpPort} (0: any), after its sync. */
  public static AgentHarness start(String apiUrl, Path socket, int tcpPort) throws Exception {
    return AgentHarness.startWith(apiUrl, on(socket, tcpPort), 0);
  }

  /** As {@link #start}, without waiting for the first sync (the API server may refuse it). */
  public static AgentHarness launch(String apiUrl, Path socket, int tcpPort) throws Exception {
    return AgentHarness.launchWith(apiUrl, on(socket, tcpPort));
  }

  /** The change to the harness's configuration: this socket, and TCP on this loopback port. */
  public static UnaryOperator<AgentConfig> on(Path socket, int tcpPort) {
    InetSocketAddress tcp = new InetSocketAddress(InetAddress.getLoopbackAddress(), tcpPort);
    // AgentConfig has no wither for listenTcp: its fullest public constructor, then the withers
    // for the fields that constructor defaults.
    return c ->
        new AgentConfig(
                c.source(),
                c.kubeconfig(),
                c.watch(),
                c.coalescer(),
                socket,
                c.adminHost(),
                c.adminPort(),
                c.nodeName(),
                Optional.of(tcp),
                c.grpcReflection(),
                c.shutdownTimeout(),
                c.limits())
            .withDrift(c.drift())
            .withState(c.state())
            .withPeers(c.peers());
  }

  /** The bootstrap's {@code server_uri} for {@code agent} ({@link XdsBootstrap#TRANSPORT}). */
  public static String serverUri(AgentHarness agent) {
    return XdsBootstrap.serverUri(agent.socket(), agent.agent().api().tcpPort());
  }
}
