package dev.routesync.app;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code routesync version}: what {@code routesync --version} prints. */
@Command(
    name = "version",
    mixinStandardHelpOptions = true,
    description = "Print the version of routesync.")
final class VersionCommand implements Runnable {

  @Spec CommandSpec spec;

  @Override
  public void run() {
    spec.root().commandLine().printVersionHelp(spec.commandLine().getOut());
  }
}
