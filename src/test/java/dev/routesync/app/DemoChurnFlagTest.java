package dev.routesync.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/** {@code demo --churn-every} takes a duration with its unit, as every other duration flag. */
class DemoChurnFlagTest {

  @ParameterizedTest
  @CsvSource({"3s, 3000", "250ms, 250", "1m, 60000", "600000, 600000"})
  void takesADurationWithUnitsAndABareNumberAsMilliseconds(String flag, long millis) {
    CommandLine.ParseResult parsed =
        Main.commandLine().parseArgs("demo", "--churn-every", flag).subcommand();

    assertThat(parsed.matchedOptionValue("--churn-every", Duration.ZERO))
        .isEqualTo(Duration.ofMillis(millis));
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          50ms | --churn-every must be at least 100ms
          3x   | Invalid value for option '--churn-every'
          """)
  void aBadChurnIntervalIsAUsageError(String flag, String message) {
    CommandLine commandLine = Main.commandLine();
    StringWriter err = new StringWriter();
    commandLine.setErr(new PrintWriter(err, true));
    commandLine.setOut(new PrintWriter(new StringWriter(), true));

    int exit = commandLine.execute("demo", "--churn-every", flag);

    assertThat(exit).isEqualTo(2);
    assertThat(err.toString()).startsWith("routesync: " + message);
  }
}
