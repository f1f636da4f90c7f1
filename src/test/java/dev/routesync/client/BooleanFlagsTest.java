package dev.routesync.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.app.Main;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine.ParseResult;

/**
 * Every boolean flag takes kubectl's {@code --flag=false}; on the commands a person types, the flag
 * alone is true (the agent's take a value, so that a typo names the flag).
 */
class BooleanFlagsTest {

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          gate -n shop --service a --allow-empty             | --allow-empty              | true
          gate -n shop --service a --allow-empty=false       | --allow-empty              | false
          lint --allow-external-workloads -                  | --allow-external-workloads | true
          lint --allow-external-workloads=false -            | --allow-external-workloads | false
          bootstrap --node-name a --envoy                    | --envoy                    | true
          bootstrap --node-name a --envoy=false              | --envoy                    | false
          bootstrap --node-name a --envoy --delta=false      | --delta                    | false
          agent --grpc-reflection=false                      | --grpc-reflection          | false
          agent --drift-detector=false                       | --drift-detector           | false
          """)
  void theFlagAloneIsTrueAndEqualsFalseIsFalse(String args, String flag, boolean value) {
    ParseResult parsed = Main.commandLine().parseArgs(args.trim().split(" +"));
    while (parsed.hasSubcommand()) {
      parsed = parsed.subcommand();
    }

    assertThat(parsed.matchedOptionValue(flag, (Boolean) null)).isEqualTo(value);
  }
}
