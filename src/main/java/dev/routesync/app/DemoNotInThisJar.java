package dev.routesync.app;

import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Unmatched;

/**
 * {@code routesync demo} in the agent's jar (the image's): the demo embeds a mock API server that a
 * node agent never runs, so it ships in routesync-demo.jar only. This says where it is, in one
 * line, and exits 2 (bad usage) whatever the flags.
 */
@Command(
    name = "demo",
    description = "Not in this jar: run it with java -jar routesync-demo.jar demo.")
final class DemoNotInThisJar implements Callable<Integer> {

  static final String MESSAGE =
      "routesync: demo is not in this jar (the agent's jar leaves the mock API server out);"
          + " run it from routesync-demo.jar: java -jar target/routesync-demo.jar demo";

  @Spec CommandSpec spec;

  /** Whatever the demo would take: refused the same way, with the one line below. */
  @Unmatched List<String> ignored;

  @Override
  public Integer call() {
    spec.commandLine().getErr().println(MESSAGE);
    return CommandLine.ExitCode.USAGE;
  }
}
