package dev.routesync.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code routesync agent ...} runs on a command line that builds only the agent's subcommand (a
 * restart's time to serving), and it behaves as the full one does.
 */
class AgentOnlyCommandLineTest {

  private static final String[] AGENT_HELP = {"agent", "--help"};

  @Test
  void theAgentRunsOnACommandLineWithOnlyItsOwnSubcommand() {
    CommandLine commandLine = Main.commandLineFor(new String[] {"agent", "--socket", "/tmp/x"});

    assertThat(commandLine.getSubcommands().keySet()).containsExactly("agent");
    assertThat(Main.commandLineFor(new String[] {"get", "services"}).getSubcommands())
        .containsKeys("agent", "demo", "get", "watch", "lint", "gate");
  }

  @Test
  void theAgentsUsageIsTheFullCommandLinesUsage() {
    assertThat(run(Main.commandLineFor(AGENT_HELP), AGENT_HELP))
        .isEqualTo(run(Main.commandLine(), AGENT_HELP))
        .contains("Usage: routesync agent");
  }

  @Test
  void aBadFlagIsTheSameUsageErrorOnBoth() {
    String[] bad = {"agent", "--max-batch", "zero"};

    assertThat(run(Main.commandLineFor(bad), bad))
        .isEqualTo(run(Main.commandLine(), bad))
        .startsWith("2 routesync: ")
        .contains("see 'routesync agent --help'");
  }

  /** The exit code, then what was printed (out, then err). */
  private static String run(CommandLine commandLine, String[] args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    int code = commandLine.execute(args);
    return code + " " + out + err;
  }
}
