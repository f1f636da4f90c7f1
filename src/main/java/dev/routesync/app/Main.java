package dev.routesync.app;

import dev.routesync.bootstrap.BootstrapCommand;
import dev.routesync.client.DebugCommand;
import dev.routesync.client.GetCommand;
import dev.routesync.client.WatchCommand;
import dev.routesync.config.FlagTypes;
import dev.routesync.gate.GateCommand;
import dev.routesync.lint.LintCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code routesync}: the agent's command line. */
@Command(
    name = "routesync",
    mixinStandardHelpOptions = true,
    versionProvider = Main.Version.class,
    description = "Keeps service-mesh sidecars' routing tables in step with Kubernetes endpoints.")
public final class Main {

  /**
   * {@code routesync demo}, named and never referenced: the image's jar (routesync.jar) leaves the
   * demo and its mock API server out, and only routesync-demo.jar carries this class.
   */
  static final String DEMO_COMMAND = "dev.routesync.app.DemoCommand";

  public static void main(String[] args) {
    System.exit(commandLineFor(args).execute(args));
  }

  /**
   * The command line that runs {@code args}: for {@code routesync agent ...}, a root that knows
   * only the agent's subcommand. Picocli reflects over every subcommand's options when it builds a
   * command line, a large part of a restart's time to serving (its classes are too old for the
   * class-data-sharing archive); a restarting agent needs only its own. Parsing, usage, error
   * messages and exit codes are the same: the same subcommand under the same root name.
   */
  static CommandLine commandLineFor(String[] args) {
    return args.length > 0 && args[0].equals("agent")
        ? configured(new CommandLine(new AgentOnly()))
        : commandLine();
  }

  /** {@code routesync} with the agent's subcommand alone (see {@link #commandLineFor}). */
  @Command(
      name = "routesync",
      mixinStandardHelpOptions = true,
      versionProvider = Main.Version.class,
      subcommands = AgentCommand.class)
  static final class AgentOnly {}

  /**
   * The configured command line; exit codes: 0 ok, 1 failed at run time, 2 bad usage (gate: 3
   * cannot evaluate).
   */
  public static CommandLine commandLine() {
    return commandLine(DEMO_COMMAND);
  }

  /** The command line, with {@code demo} from {@code demoCommand} when that class is present. */
  static CommandLine commandLine(String demoCommand) {
    CommandLine commandLine = new CommandLine(new Main());
    // Added here, not in @Command(subcommands): so that `demo` keeps its place in the help, and
    // so that the demo is a class name, not a reference. Before the exception handler below,
    // which applies to the subcommands present when it is set.
    commandLine.addSubcommand(AgentCommand.class);
    commandLine.addSubcommand(demo(demoCommand));
    commandLine.addSubcommand(GetCommand.class);
    commandLine.addSubcommand(WatchCommand.class);
    commandLine.addSubcommand(LintCommand.class);
    commandLine.addSubcommand(GateCommand.class);
    commandLine.addSubcommand(BootstrapCommand.class);
    commandLine.addSubcommand(DebugCommand.class);
    commandLine.addSubcommand(new CommandLine.HelpCommand());
    commandLine.addSubcommand(VersionCommand.class);
    RootSocket.install(commandLine);
    return configured(commandLine);
  }

  private static CommandLine configured(CommandLine commandLine) {
    // Durations with units and enums in any case, once for every subcommand.
    FlagTypes.register(commandLine);
    // --version on every subcommand prints the root's version, not an empty line.
    versionEverywhere(commandLine, commandLine.getCommandSpec().versionProvider());
    commandLine.setParameterExceptionHandler(
        (error, args) -> {
          // One clear line, not a usage dump: this is usually read in a pod's log.
          CommandLine command = error.getCommandLine();
          command
              .getErr()
              .println(
                  "routesync: "
                      + error.getMessage()
                      + " (see '"
                      + command.getCommandSpec().qualifiedName()
                      + " --help')");
          // A mistyped command gets picocli's nearest commands on a second line; an unknown
          // option does not (its guesses are poor, and an agent's error stays one log line).
          if (error instanceof CommandLine.UnmatchedArgumentException unmatched
              && !unmatched.isUnknownOption()) {
            unmatched.printSuggestions(command.getErr());
          }
          return CommandLine.ExitCode.USAGE;
        });
    return commandLine;
  }

  private static void versionEverywhere(CommandLine command, CommandLine.IVersionProvider version) {
    command.getCommandSpec().versionProvider(version);
    command.getSubcommands().values().forEach(sub -> versionEverywhere(sub, version));
  }

  private static Object demo(String className) {
    try {
      return Class.forName(className);
    } catch (ClassNotFoundException absent) {
      return new DemoNotInThisJar();
    }
  }

  /** The version from the jar's manifest, or "dev" when run from classes. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String version = Main.class.getPackage().getImplementationVersion();
      return new String[] {"routesync " + (version == null ? "dev" : version)};
    }
  }
}
