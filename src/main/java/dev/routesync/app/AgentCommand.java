package dev.routesync.app;

import dev.routesync.Agent;
import dev.routesync.config.AgentConfig;
import dev.routesync.config.AgentOptions;
import dev.routesync.logs.ConsoleFormat;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code routesync agent}: watch the cluster and serve local sidecars until SIGTERM. */
@Command(
    name = "agent",
    mixinStandardHelpOptions = true,
    description = "Run the agent against the cluster in the current credentials.")
public final class AgentCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Mixin AgentOptions options;

  @Override
  public Integer call() {
    AgentConfig config = validated(spec, options);
    ConsoleFormat.apply(options.logFormat());
    return AgentRunner.run(Agent.start(config), spec.commandLine().getErr());
  }

  /** Validates the options or fails with a usage error (exit code 2). */
  static AgentConfig validated(CommandSpec spec, AgentOptions options) {
    try {
      return options.toConfig();
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage(), e);
    }
  }
}
