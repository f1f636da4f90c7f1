package dev.routesync.client;

import dev.routesync.config.AgentConfig;
import java.nio.file.Path;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** The flags every client command takes: where the agent listens, and how to print. */
public final class ClientOptions {

  @Option(
      names = "--socket",
      paramLabel = "PATH",
      defaultValue = "${env:ROUTESYNC_SOCKET:-" + AgentConfig.DEFAULT_SOCKET + "}",
      description = "The agent's Unix socket (default: ${DEFAULT-VALUE}). Env: ROUTESYNC_SOCKET")
  String socket;

  @Option(
      names = {"-o", "--output"},
      defaultValue = "table",
      paramLabel = "FORMAT",
      description = OutputFormat.DESCRIPTION)
  OutputFormat output;

  /** The socket path, or a usage error (exit code 2) when it is blank. */
  Path socket(CommandSpec spec) {
    if (socket == null || socket.isBlank()) {
      throw new ParameterException(spec.commandLine(), "--socket must not be empty");
    }
    return Path.of(socket.trim());
  }

  OutputFormat output() {
    return output;
  }
}
