package dev.routesync.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.testing.ServeHarness;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Picocli's habits, as kubectl users expect them: a typo gets a suggestion, {@code help} and {@code
 * version} are commands, and {@code --socket} may come before the subcommand.
 */
@Timeout(60)
class CommandLineHabitsTest {

  private static ServeHarness serve;

  @BeforeAll
  static void start() throws Exception {
    serve = new ServeHarness();
    serve.put("shop", "cart", 2);
  }

  @AfterAll
  static void stop() throws Exception {
    serve.close();
  }

  @Test
  void aTypoSuggestsTheNearestCommand() {
    Cli.Result result = Cli.run("gett", "services");

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.out()).isEmpty();
    assertThat(result.err())
        .startsWith("routesync: Unmatched arguments from index 0: 'gett', 'services'")
        .contains("Did you mean: routesync get or");
  }

  @Test
  void aTypoInASubcommandSuggestsTheNearestResource() {
    Cli.Result result = Cli.run("get", "servics");

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err()).endsWith("\nDid you mean: get service or get services?\n");
  }

  @Test
  void helpIsACommand() {
    Cli.Result help = Cli.run("help", "get");

    assertThat(help.exitCode()).isZero();
    assertThat(help.out())
        .isEqualTo(Cli.run("get", "--help").out())
        .startsWith("Usage: routesync get");
  }

  @Test
  void versionIsACommandAndAnOptionOfEveryCommand() {
    Cli.Result version = Cli.run("version");

    assertThat(version.exitCode()).isZero();
    assertThat(version.out()).startsWith("routesync ").isEqualTo(Cli.run("--version").out());
    assertThat(Cli.run("get", "services", "--version").out()).isEqualTo(version.out());
  }

  @Test
  void theSocketMayComeBeforeTheSubcommand() {
    Cli.Result after = Cli.run("get", "services", "--socket", serve.socket().toString());
    Cli.Result before = Cli.run("--socket", serve.socket().toString(), "get", "services");

    assertThat(before.err()).isEqualTo(after.err());
    assertThat(before.exitCode()).isZero();
    assertThat(before.out()).isEqualTo(after.out()).contains("shop");
  }

  @Test
  void theSocketAfterTheSubcommandWins() {
    Cli.Result result =
        Cli.run(
            "--socket",
            "/nonexistent/agent.sock",
            "get",
            "svc",
            "--socket",
            serve.socket().toString());

    assertThat(result.exitCode()).isZero();
    assertThat(result.out()).contains("shop");
  }

  @Test
  void theSocketBeforeACommandThatTakesNoneIsAUsageError() {
    Cli.Result result = Cli.run("--socket", "/tmp/x.sock", "lint", "-");

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err())
        .isEqualTo("routesync: 'routesync lint' takes no --socket (see 'routesync lint --help')\n");
  }
}
