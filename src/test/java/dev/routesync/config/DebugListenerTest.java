package dev.routesync.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The debug listener binds loopback only; its flags and their defaults. */
class DebugListenerTest {

  @Test
  void loopbackOnly() {
    new DebugListener("127.0.0.1", 9902);
    new DebugListener("127.0.0.7", 9902);
    new DebugListener("::1", 9902);
    new DebugListener("localhost", 9902);
    for (String host : new String[] {"0.0.0.0", "10.0.0.1", "::", "example.com", ""}) {
      assertThatThrownBy(() -> new DebugListener(host, 9902))
          .as(host)
          .hasMessageContaining("--debug-host must be a loopback address");
    }
    assertThatThrownBy(() -> new DebugListener("127.0.0.1", 70000))
        .hasMessageContaining("--debug-port must be between 0 and 65535");
  }

  @Test
  void onByDefaultOnLoopbackAndTurnedOffWithPortZero() {
    AgentOptions defaults = new AgentOptions();
    FlagTypes.register(new CommandLine(defaults)).parseArgs();
    assertThat(defaults.toConfig().debug()).isEqualTo(new DebugListener("127.0.0.1", 9902));

    AgentOptions off = new AgentOptions();
    FlagTypes.register(new CommandLine(off)).parseArgs("--debug-port", "0");
    assertThat(off.toConfig().debug().enabled()).isFalse();
  }
}
