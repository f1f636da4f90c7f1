package dev.routesync.lint;

import dev.routesync.app.Main;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Supplier;
import picocli.CommandLine;

/**
 * Runs {@code routesync lint ARGS} in this JVM through {@link Main#commandLine()}, as {@code main}
 * would, with {@code stdin} as its standard input and both output streams captured.
 */
final class LintCli {

  /** The directory of the fixtures, as a CI job would name it (relative to the project). */
  static final String FIXTURES = "src/test/resources/lint";

  record Result(int exitCode, String out, String err) {

    /** stdout's lines. */
    List<String> lines() {
      return out.isEmpty() ? List.of() : List.of(out.split("\n"));
    }
  }

  private LintCli() {}

  static Result run(String... args) {
    return withStdin("", args);
  }

  static Result withStdin(String stdin, String... args) {
    return withStdin(() -> new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)), args);
  }

  static Result withStdin(Supplier<InputStream> stdin, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine commandLine = Main.commandLine();
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    LintCommand lint = commandLine.getSubcommands().get("lint").getCommand();
    lint.stdin = stdin;
    String[] lintArgs = new String[args.length + 1];
    lintArgs[0] = "lint";
    System.arraycopy(args, 0, lintArgs, 1, args.length);
    int exitCode = commandLine.execute(lintArgs);
    return new Result(exitCode, out.toString(), err.toString());
  }
}
