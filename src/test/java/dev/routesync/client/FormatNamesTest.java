package dev.routesync.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.app.Main;
import dev.routesync.testing.ServeHarness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine.ParseResult;

/**
 * The default format has one name on every command: {@code -o table} and {@code -o text} both mean
 * it, on {@code get}, {@code lint} and {@code gate}.
 */
@Timeout(60)
class FormatNamesTest {

  @Test
  void getTakesTextForItsTable() throws Exception {
    try (ServeHarness serve = new ServeHarness()) {
      serve.put("shop", "cart", 2);
      String socket = serve.socket().toString();

      Cli.Result table = Cli.run("get", "svc", "-o", "table", "--socket", socket);
      Cli.Result text = Cli.run("get", "svc", "-o", "text", "--socket", socket);
      Cli.Result drift = Cli.run("get", "drift", "-o", "text", "--socket", socket);

      assertThat(text.exitCode()).as(text.err()).isZero();
      assertThat(text.out()).isEqualTo(table.out()).contains("cart");
      assertThat(drift.err()).doesNotContain("Invalid value");
    }
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          lint -o table -                    | TABLE
          lint -o TEXT -                     | TEXT
          gate -n shop --service a -o table  | TABLE
          gate -n shop --service a -o Text   | TEXT
          get services -o text               | TEXT
          get endpoints shop/cart -o JSON    | JSON
          """)
  void tableAndTextNameTheDefaultFormat(String args, String format) {
    ParseResult parsed = Main.commandLine().parseArgs(args.trim().split(" +"));
    while (parsed.hasSubcommand()) {
      parsed = parsed.subcommand();
    }

    // In any case, as picocli reads every enum; table and text then print the same (above).
    assertThat(((Enum<?>) parsed.matchedOptionValue("--output", (Object) null)).name())
        .isEqualTo(format);
  }
}
