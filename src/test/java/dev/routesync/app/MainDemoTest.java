package dev.routesync.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code demo} is found by name: the agent's jar (routesync.jar) has no demo classes, and there the
 * command says where the demo is instead of failing with a missing class.
 */
class MainDemoTest {

  @Test
  void withoutTheDemoClassDemoNamesTheDemoJarAndExits2() {
    CommandLine commandLine = Main.commandLine("dev.routesync.app.NoSuchDemoCommand");
    StringWriter err = new StringWriter();
    StringWriter out = new StringWriter();
    commandLine.setErr(new PrintWriter(err, true));
    commandLine.setOut(new PrintWriter(out, true));

    int exit = commandLine.execute("demo", "--socket", "/tmp/x.sock", "--help");

    assertThat(exit).isEqualTo(2);
    assertThat(err.toString().lines().toList())
        .singleElement()
        .asString()
        .contains("routesync-demo.jar", "java -jar target/routesync-demo.jar demo");
    assertThat(out.toString()).isEmpty();
  }

  @Test
  void withTheDemoClassDemoIsTheDemoInItsPlaceInTheHelp() {
    CommandLine commandLine = Main.commandLine();

    Object demo = commandLine.getSubcommands().get("demo").getCommand();
    assertThat(demo).isInstanceOf(DemoCommand.class);
    assertThat(commandLine.getSubcommands().keySet())
        .containsExactly(
            "agent",
            "demo",
            "get",
            "watch",
            "lint",
            "gate",
            "bootstrap",
            "debug",
            "help",
            "version");
  }

  @Test
  void aBadFlagStillGetsTheOneLineUsageError() {
    CommandLine commandLine = Main.commandLine();
    StringWriter err = new StringWriter();
    commandLine.setErr(new PrintWriter(err, true));

    int exit = commandLine.execute("demo", "--no-such-flag");

    assertThat(exit).isEqualTo(2);
    assertThat(err.toString()).startsWith("routesync: ").contains("'routesync demo --help'");
  }
}
