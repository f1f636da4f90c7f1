package dev.routesync.client;

import dev.routesync.app.Main;
import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/** Runs {@code routesync ARGS} in this JVM, as {@code main} would, capturing both streams. */
final class Cli {

  record Result(int exitCode, String out, String err) {}

  private Cli() {}

  static Result run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine commandLine = Main.commandLine();
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    int exitCode = commandLine.execute(args);
    return new Result(exitCode, out.toString(), err.toString());
  }
}
