package dev.routesync.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.routesync.serve.ConnectionLimits;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * --max-connections, --header-timeout, --idle-timeout and --body-timeout reach the configuration,
 * checked.
 */
class ConnectionFlagsTest {

  private static AgentConfig config(String... args) {
    var command = new AgentOptionsTest.OptionsCommand();
    FlagTypes.register(new CommandLine(command)).parseArgs(args);
    return command.options.toConfig();
  }

  @Test
  void flagsSetTheSocketListenersLimits() {
    ConnectionLimits limits =
        config("--max-connections", "200", "--header-timeout", "3s", "--idle-timeout", "1m")
            .limits();
    assertThat(limits)
        .isEqualTo(new ConnectionLimits(200, Duration.ofSeconds(3), Duration.ofMinutes(1)));
    assertThat(limits.forAdmin().maxConnections())
        .isEqualTo(ConnectionLimits.ADMIN_MAX_CONNECTIONS);
    assertThat(config("--max-connections", "200").describe()).contains("max-connections=200");
  }

  @Test
  void theBodyTimeoutDefaultsToFiveSecondsAndIsSetByItsFlagOrEnvTwin() {
    assertThat(config().limits().bodyTimeout()).isEqualTo(Duration.ofSeconds(5));
    assertThat(config("--body-timeout", "2s").limits().bodyTimeout())
        .isEqualTo(Duration.ofSeconds(2));
    assertThat(config("--body-timeout", "2s").limits().forAdmin().bodyTimeout())
        .isEqualTo(Duration.ofSeconds(2));
    assertThat(config("--body-timeout", "2s").describe()).contains("body-timeout=2s");
    assertThatThrownBy(() -> config("--body-timeout", "500ms"))
        .hasMessageContaining("--body-timeout");
    assertThatThrownBy(() -> config("--body-timeout", "6m")).hasMessageContaining("--body-timeout");
  }

  @Test
  void theStreamCapDefaultsTo4096AndIsSetByItsFlag() {
    assertThat(config().limits().maxStreams()).isEqualTo(4096);
    assertThat(config("--max-streams", "100").limits().maxStreams()).isEqualTo(100);
    assertThat(config("--max-streams", "100").describe()).contains("max-streams=100");
    assertThatThrownBy(() -> config("--max-streams", "0")).hasMessageContaining("--max-streams");
  }

  @Test
  void outOfRangeValuesAreRefusedNamingTheFlag() {
    assertThatThrownBy(() -> config("--max-connections", "0"))
        .hasMessageContaining("--max-connections");
    assertThatThrownBy(() -> config("--header-timeout", "0"))
        .hasMessageContaining("--header-timeout");
    assertThatThrownBy(() -> config("--idle-timeout", "soon"))
        .hasMessageContaining("--idle-timeout");
  }
}
