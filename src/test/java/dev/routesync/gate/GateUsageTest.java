package dev.routesync.gate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.app.Main;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.api.parallel.Resources;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Bad arguments are usage errors: one line, exit code 2, no call to any cluster. */
class GateUsageTest {

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          gate --service quote                               | Missing required option: '--namespace=NAMESPACE'
          gate -n shop                                       | name the Services to check: --service NAME... or -l SELECTOR
          gate -n shop --service quote -l app=quote          | give --service or -l, not both
          gate -n shop -l a=b=c                              | -l: 'a=b=c' is not a valid label selector requirement
          gate -n shop -l                                    | Missing required parameter for option '--selector' (SELECTOR)
          gate -n Shop --service quote                       | namespace "Shop": must be a DNS-1123 label (lowercase letters, digits and '-', at most 63 characters, starting and ending with a letter or digit)
          gate -n shop --service Quote                       | Service name "Quote": must be a DNS-1123 label (lowercase letters, digits and '-', at most 63 characters, starting and ending with a letter or digit)
          gate -n shop --service quote --timeout 5           | Invalid value for option '--timeout': '5' is not a duration (expected e.g. 0, 250ms, 10s, 5m, 1h)
          gate -n shop --service quote --timeout 0           | --timeout must be between 1ms and 24h, got 0
          gate -n shop --service quote --settle 2h           | --settle must be between 0 and 1h, got 2h
          gate -n shop --service quote --request-timeout 1ms | --request-timeout must be between 100ms and 5m, got 1ms
          gate -n shop --service quote -o xml                | Invalid value for option '--output': expected one of [TEXT, TABLE, JSON, YAML, NAME] (case-insensitive) but was 'xml'
          gate -n shop --service quote extra                 | Unmatched argument at index 5: 'extra'
          """)
  void printsOneLineAndExitsWithTwo(String args, String message) {
    GateCli.Result result = GateCli.run(args.split(" +"));

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.out()).isEmpty();
    assertThat(result.err())
        .isEqualTo("routesync: " + message + " (see 'routesync gate --help')\n");
  }

  @Test
  @ResourceLock(Resources.SYSTEM_ERR)
  void helpListsTheExitCodesWithoutPicocliWarnings() {
    ByteArrayOutputStream systemErr = new ByteArrayOutputStream();
    PrintStream original = System.err;
    StringWriter out = new StringWriter();
    int exitCode;
    System.setErr(new PrintStream(systemErr, true, StandardCharsets.UTF_8));
    try {
      var commandLine = Main.commandLine();
      commandLine.setOut(new PrintWriter(out, true));
      commandLine.setErr(new PrintWriter(new StringWriter(), true));
      exitCode = commandLine.execute("gate", "--help");
    } finally {
      System.setErr(original);
    }

    assertThat(exitCode).isZero();
    assertThat(systemErr.toString(StandardCharsets.UTF_8)).doesNotContain("WARN");
    assertThat(out.toString())
        .contains("Usage: routesync gate")
        .contains("--settle=DURATION")
        .contains("Exit codes:")
        .contains("3   cannot evaluate");
  }
}
