package dev.routesync.client;

import java.io.PrintWriter;
import java.nio.file.Path;
import picocli.CommandLine.ExitCode;
import picocli.CommandLine.Model.CommandSpec;

/**
 * Runs one client command against the agent: opens the client, closes it afterwards, and turns a
 * failed call into one line on stderr and exit code 1.
 */
final class ClientRun {

  /** What a command does with the agent; returns the exit code. */
  @FunctionalInterface
  interface Action {
    int run(AgentClient agent, PrintWriter out, PrintWriter err);
  }

  private ClientRun() {}

  static int run(CommandSpec spec, Path socket, Action action) {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    ClientLogging.muteLibraries();
    try (AgentClient agent = AgentClient.open(socket)) {
      return action.run(agent, out, err);
    } catch (AgentCallException e) {
      err.println("routesync: " + e.getMessage());
      return ExitCode.SOFTWARE;
    } finally {
      out.flush();
      err.flush();
    }
  }
}
