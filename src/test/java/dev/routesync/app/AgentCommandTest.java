package dev.routesync.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.routesync.config.FlagTypes;
import dev.routesync.testing.NameRule;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class AgentCommandTest {

  @TempDir Path dir;

  @Test
  void aValidationFailureBecomesAPicocliUsageError() {
    AgentCommand command = new AgentCommand();
    CommandLine commandLine = FlagTypes.register(new CommandLine(command));
    commandLine.parseArgs("--max-batch", "0");

    assertThatThrownBy(() -> AgentCommand.validated(commandLine.getCommandSpec(), command.options))
        .isInstanceOf(CommandLine.ParameterException.class)
        .hasMessageStartingWith("--max-batch")
        .hasCauseInstanceOf(IllegalArgumentException.class);
  }

  // Should the agent start after all, the timeout ends the test instead of hanging the build.
  @Test
  @Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aBadNamespaceFlagIsAUsageErrorWithTheRuleTheApisGive() {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine commandLine = Main.commandLine();
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));

    int exitCode =
        commandLine.execute(
            "agent",
            "--socket",
            dir.resolve("rs.sock").toString(),
            "--admin-port",
            "0",
            "--state-file",
            "",
            "--namespace",
            "shop,Payments");

    assertThat(exitCode).isEqualTo(2);
    assertThat(out.toString()).isEmpty();
    assertThat(err.toString())
        .isEqualTo(
            "routesync: --namespace: "
                + NameRule.namespace("Payments")
                + " (see 'routesync agent --help')\n");
  }
}
