package dev.routesync.bootstrap;

import dev.routesync.app.Main;
import dev.routesync.testing.Kubeconfigs;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine;

/**
 * Runs {@code routesync bootstrap ARGS} in this JVM through {@link Main}, capturing both streams.
 */
final class BootstrapCli {

  record Result(int exitCode, String out, String err) {}

  private BootstrapCli() {}

  static Result run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine commandLine = Main.commandLine();
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    String[] all = new String[args.length + 1];
    all[0] = "bootstrap";
    System.arraycopy(args, 0, all, 1, args.length);
    int exitCode = commandLine.execute(all);
    return new Result(exitCode, out.toString(), err.toString());
  }

  /** A kubeconfig for {@code server} with a token user. */
  static Path kubeconfig(Path dir, String server) throws Exception {
    Path file = dir.resolve("kubeconfig");
    Files.writeString(file, Kubeconfigs.withToken("test", server, "test"));
    return file;
  }
}
