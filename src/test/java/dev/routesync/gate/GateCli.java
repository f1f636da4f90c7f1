package dev.routesync.gate;

import dev.routesync.app.Main;
import dev.routesync.testing.Kubeconfigs;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import picocli.CommandLine;

/**
 * Runs {@code routesync ARGS} in this JVM, as {@code main} would, capturing both streams (as {@code
 * client.Cli}); the streams can be read while the command runs, to see the gate's progress.
 */
public final class GateCli {

  public record Result(int exitCode, String out, String err) {}

  /** A command running on another thread. */
  public static final class Running {
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();
    public final CompletableFuture<Result> result;

    private final Thread thread;

    public Running(String... args) {
      CommandLine commandLine = Main.commandLine();
      commandLine.setOut(new PrintWriter(out, true));
      commandLine.setErr(new PrintWriter(err, true));
      result = new CompletableFuture<>();
      thread =
          new Thread(
              () ->
                  result.complete(
                      new Result(commandLine.execute(args), out.toString(), err.toString())),
              "gate-cli");
      thread.setDaemon(true);
      thread.start();
    }

    /** Ends the command as Ctrl-C would end a pipeline step: it reports an interrupted run. */
    void interrupt() {
      thread.interrupt();
    }

    /** What the command has printed on stderr so far (StringWriter is synchronized). */
    public String errSoFar() {
      return err.toString();
    }
  }

  private GateCli() {}

  public static Result run(String... args) {
    return new Running(args).result.join();
  }

  /** A kubeconfig for {@code server} with a token user, namespace shop. */
  public static Path kubeconfig(Path dir, String server) throws Exception {
    Path file = dir.resolve("kubeconfig");
    Files.writeString(file, Kubeconfigs.withToken("test", server, "test", "shop"));
    return file;
  }
}
