package dev.routesync.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.routesync.kube.WatchSettings;
import dev.routesync.sync.CoalescerSettings;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The configuration's own rules hold however it is built: from flags or in code. */
class AgentConfigTest {

  private static AgentConfig config(
      String socket, int adminPort, Optional<InetSocketAddress> tcp, Duration shutdownTimeout) {
    return new AgentConfig(
        Source.ENDPOINTSLICES,
        Optional.empty(),
        WatchSettings.of(List.of(), "app"),
        CoalescerSettings.defaults(),
        Path.of(socket),
        "127.0.0.1",
        adminPort,
        "",
        tcp,
        true,
        shutdownTimeout,
        dev.routesync.serve.ConnectionLimits.DEFAULT);
  }

  private static AgentConfig withShutdownTimeout(Duration timeout) {
    return config("/tmp/rs.sock", 0, Optional.empty(), timeout);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          999     | --shutdown-timeout must be between 1s and 5m, got 999ms
          300001  | --shutdown-timeout must be between 1s and 5m, got 300001ms
          0       | --shutdown-timeout must be between 1s and 5m, got 0
          """)
  void theShutdownTimeoutIsWithinItsRange(long millis, String message) {
    assertThatThrownBy(() -> withShutdownTimeout(Duration.ofMillis(millis)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(message);
  }

  @Test
  void theShutdownTimeoutsBoundsAreAccepted() {
    assertThat(withShutdownTimeout(AgentConfig.MIN_SHUTDOWN_TIMEOUT).shutdownTimeout())
        .isEqualTo(Duration.ofSeconds(1));
    assertThat(withShutdownTimeout(AgentConfig.MAX_SHUTDOWN_TIMEOUT).shutdownTimeout())
        .isEqualTo(Duration.ofMinutes(5));
  }

  @ParameterizedTest
  @ValueSource(ints = {-1, 65536, 70000})
  void theAdminPortIsAPort(int port) {
    assertThatThrownBy(() -> config("/tmp/rs.sock", port, Optional.empty(), Duration.ofSeconds(5)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("--admin-port must be between 0 and 65535, got " + port);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "   "})
  void theSocketIsNotEmpty(String socket) {
    assertThatThrownBy(() -> config(socket, 0, Optional.empty(), Duration.ofSeconds(5)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("--socket must not be empty");
  }

  @ParameterizedTest
  @ValueSource(strings = {"10.1.2.3", "0.0.0.0", "::"})
  void theTcpListenerIsOnLoopbackOnly(String host) throws Exception {
    InetSocketAddress address = new InetSocketAddress(InetAddress.getByName(host), 9465);

    assertThatThrownBy(() -> config("/tmp/rs.sock", 0, Optional.of(address), Duration.ofSeconds(5)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "--listen-tcp must be a loopback address (127.0.0.0/8, ::1 or localhost): sidecars on"
                + " other hosts must not reach the agent; got '"
                + address.getAddress().getHostAddress()
                + "'");
  }

  @Test
  void anUnresolvedTcpAddressIsRefused() {
    InetSocketAddress unresolved = InetSocketAddress.createUnresolved("localhost", 9465);

    assertThatThrownBy(
            () -> config("/tmp/rs.sock", 0, Optional.of(unresolved), Duration.ofSeconds(5)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageEndingWith("got 'localhost'");
  }
}
