package dev.routesync.app;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class AgentCommandTest {

  @Test
  void aValidationFailureBecomesAPicocliUsageError() {
    AgentCommand command = new AgentCommand();
    CommandLine commandLine = new CommandLine(command);
    commandLine.parseArgs("--max-batch", "0");

    assertThatThrownBy(() -> AgentCommand.validated(commandLine.getCommandSpec(), command.options))
        .isInstanceOf(CommandLine.ParameterException.class)
        .hasMessageStartingWith("--max-batch")
        .hasCauseInstanceOf(IllegalArgumentException.class);
  }
}
