package dev.routesync.lint;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An unreadable input's error is one line, whatever characters the input holds: snakeyaml names the
 * character it choked on, raw, so "*" and a newline gave a two-line error, and an ESC in a hostile
 * manifest reached the terminal or CI log as is (ManifestReaderFuzzTest's first finding).
 */
class ControlCharactersTest {

  @ParameterizedTest
  @ValueSource(strings = {"*\n", "*\u001b[2J", "a: *\u0085", "a: *\u202e"})
  void anErrorNamingAControlCharacterIsOneEscapedLine(String yaml) {
    LintCli.Result result = LintCli.withStdin(yaml, "-");

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err()).startsWith("routesync lint: <stdin>:1: not valid YAML: ");
    assertThat(result.err().stripTrailing().lines()).hasSize(1);
    assertThat(result.err().stripTrailing().chars())
        .allMatch(c -> c >= 0x20 && c < 0x7f, "printable ASCII");
  }
}
