package dev.routesync.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.config.AgentOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/** Every flag of `routesync agent` has its row in docs/configuration.md, with its env twin. */
class ConfigurationDocTest {

  @Test
  void everyAgentFlagIsDocumented() throws Exception {
    String doc = Files.readString(Path.of("docs", "configuration.md"));
    List<OptionSpec> options = new CommandLine(new AgentOptions()).getCommandSpec().options();
    assertThat(options).isNotEmpty();
    for (OptionSpec option : options) {
      String flag = option.longestName();
      if (option.usageHelp() || option.versionHelp()) {
        continue;
      }
      assertThat(doc).as("docs/configuration.md names %s", flag).contains("| `" + flag + "` |");
      String env =
          "ROUTESYNC_" + flag.substring(2).replace('-', '_').toUpperCase(java.util.Locale.ROOT);
      assertThat(doc).as("docs/configuration.md names %s's twin", flag).contains("`" + env + "`");
    }
  }
}
