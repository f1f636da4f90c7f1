package dev.routesync.app;

import java.nio.file.Path;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;

/**
 * {@code routesync --socket PATH get services}: {@code --socket} before the subcommand, as kubectl
 * takes its global flags. It is the subcommand's own {@code --socket} (agent, demo, bootstrap, get
 * and watch), given early; the one after the subcommand wins. Before a command that takes none, it
 * is a usage error rather than silently ignored.
 *
 * <p>Not picocli's {@code scope = INHERIT}: that adds the option to every subcommand, and most of
 * them already declare their own {@code --socket} (with their own default and help text).
 */
final class RootSocket {

  private static final String NAME = "--socket";

  private RootSocket() {}

  /** Adds {@code --socket} to the root and hands its value to the subcommand that runs. */
  static void install(CommandLine root) {
    root.getCommandSpec()
        .addOption(
            OptionSpec.builder(NAME)
                .paramLabel("PATH")
                .type(String.class)
                .description("The agent's Unix socket, for the subcommand that takes --socket.")
                .build());
    CommandLine.IExecutionStrategy run = new CommandLine.RunLast();
    root.setExecutionStrategy(
        parseResult -> {
          handOn(parseResult);
          return run.execute(parseResult);
        });
  }

  private static void handOn(ParseResult root) {
    if (!root.hasMatchedOption(NAME) || !root.hasSubcommand()) {
      return;
    }
    ParseResult leaf = root;
    while (leaf.hasSubcommand()) {
      leaf = leaf.subcommand();
    }
    if (leaf.isUsageHelpRequested() || leaf.isVersionHelpRequested()) {
      return;
    }
    CommandSpec command = leaf.commandSpec();
    OptionSpec socket = command.findOption(NAME);
    if (socket == null) {
      throw new ParameterException(
          command.commandLine(), "'" + command.qualifiedName() + "' takes no " + NAME);
    }
    if (leaf.hasMatchedOption(NAME)) {
      return; // after the subcommand: the nearer one wins
    }
    String value = root.matchedOptionValue(NAME, "");
    socket.setValue(socket.type() == Path.class ? Path.of(value) : value);
  }
}
