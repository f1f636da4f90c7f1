package dev.routesync.lint;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A tag that percent-decodes to something snakeyaml-engine's {@code Tag} refuses is an unreadable
 * input (exit 2, one line), not a crash: the composer throws a bare IllegalArgumentException, not a
 * YAML exception (ManifestReaderFuzzTest found {@code !%1} with CI's fixed seed).
 */
class MalformedTagsTest {

  @ParameterizedTest
  @ValueSource(strings = {"!%1", "a: !%20x b", "- !%1 x\n"})
  void aTagTheParserRefusesIsNotValidYaml(String yaml) {
    LintCli.Result result = LintCli.withStdin(yaml, "-");

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err()).startsWith("routesync lint: <stdin>:1: not valid YAML: ");
    assertThat(result.err().stripTrailing().lines()).hasSize(1);
  }
}
