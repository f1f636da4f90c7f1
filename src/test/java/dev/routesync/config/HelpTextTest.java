package dev.routesync.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.app.Main;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.api.parallel.Resources;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The agent's help is printed cleanly: picocli warns on System.err about a bad description. */
class HelpTextTest {

  @ParameterizedTest
  @ValueSource(strings = {"agent", "demo"})
  @ResourceLock(Resources.SYSTEM_ERR)
  void helpPrintsNoPicocliWarning(String command) {
    ByteArrayOutputStream systemErr = new ByteArrayOutputStream();
    PrintStream original = System.err;
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exitCode;
    System.setErr(new PrintStream(systemErr, true, StandardCharsets.UTF_8));
    try {
      var commandLine = Main.commandLine();
      commandLine.setOut(new PrintWriter(out, true));
      commandLine.setErr(new PrintWriter(err, true));
      exitCode = commandLine.execute(command, "--help");
    } finally {
      System.setErr(original);
    }

    assertThat(exitCode).isZero();
    assertThat(systemErr.toString(StandardCharsets.UTF_8)).doesNotContain("WARN");
    assertThat(err.toString()).doesNotContain("WARN");
    assertThat(out.toString()).contains("jittered +-10%;");
  }
}
