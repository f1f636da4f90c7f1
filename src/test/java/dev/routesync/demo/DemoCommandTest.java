package dev.routesync.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.routesync.app.Main;
import dev.routesync.testing.GrpcJavaClient;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The real {@code routesync demo} process, as a newcomer runs it and stops it with Ctrl-C. */
class DemoCommandTest {

  @TempDir Path dir;

  @Test
  void stoppingTheDemoRemovesItsTemporaryDirectory() throws Exception {
    // The demo's own temporary directory (kubeconfig, default socket, lock) lands in here.
    Path tmp = Files.createDirectory(dir.resolve("tmp"));
    Path log = dir.resolve("demo.log");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process process =
        new ProcessBuilder(
                java,
                "-Djava.io.tmpdir=" + tmp,
                "-cp",
                System.getProperty("java.class.path"),
                "dev.routesync.app.Main",
                "demo",
                "--admin-port",
                "0",
                "--shutdown-timeout",
                "5s")
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    try {
      // No --socket: the demo serves on a socket in its temporary directory. A cold JVM's start
      // is not what is tested: at a load average of 15 on 2 cores it took 22-25 s.
      Path socket =
          await()
              .atMost(Duration.ofSeconds(60))
              .until(() -> demoDir(tmp).map(d -> d.resolve("routesync.sock")), Optional::isPresent)
              .orElseThrow();
      try (GrpcJavaClient grpc = new GrpcJavaClient(socket)) {
        // The socket is bound before the first list; with two busy loops beside the suite the
        // cold demo took over 20 s from there to its first answer.
        await()
            .atMost(Duration.ofSeconds(60))
            .ignoreExceptions()
            .until(() -> grpc.resolve("shop", "cart").getEndpointsCount() >= 2);
      }
      // The banner comes once the first sync is done, and says how to point the CLI at the demo.
      String banner =
          await()
              .atMost(Duration.ofSeconds(60))
              .until(() -> Files.readString(log), text -> text.contains("Ctrl-C to stop."));
      assertThat(banner)
          .contains("export ROUTESYNC_SOCKET=" + socket.toAbsolutePath() + "\n")
          .contains("  routesync get services\n")
          .contains("  routesync watch -n shop");
      assertThat(banner.indexOf("routesync demo: syncing with the mock API server"))
          .as(banner)
          .isNotNegative()
          .isLessThan(banner.indexOf("routesync demo is serving on"));
      // The seeded incident: on the demo's node, quote's new pod renamed its port and drifts.
      assertThat(banner).contains("  routesync get drift");
      String drift =
          await()
              .atMost(Duration.ofSeconds(30))
              .until(
                  () -> getDrift(socket),
                  out -> out.contains("quote-new-1") && out.contains("NamedPortNotFound"));
      assertThat(drift).doesNotContain("quote-old-1");
      assertThat(socket.getParent().resolve("kubeconfig")).exists();
      // It persists its table like the agent, into its own directory, never the host's.
      await()
          .atMost(Duration.ofSeconds(20))
          .until(
              () -> Files.isRegularFile(socket.getParent().resolve("state").resolve("table.bin")));

      process.destroy(); // SIGTERM; Ctrl-C (SIGINT) takes the same shutdown path
      assertThat(process.waitFor(15, TimeUnit.SECONDS)).as("exited").isTrue();

      assertThat(process.exitValue()).as(Files.readString(log)).isZero();
      assertThat(demoEntries(tmp)).as(Files.readString(log)).isEmpty();
    } finally {
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
    }
  }

  /** What {@code routesync get drift} prints against the demo (out and err), as its banner says. */
  private static String getDrift(Path socket) {
    StringWriter out = new StringWriter();
    CommandLine commandLine = Main.commandLine();
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(out, true));
    commandLine.execute("get", "drift", "--socket", socket.toString());
    return out.toString();
  }

  private static Optional<Path> demoDir(Path tmp) throws IOException {
    List<Path> entries = demoEntries(tmp);
    return entries.isEmpty() ? Optional.empty() : Optional.of(entries.get(0));
  }

  /** What the demo left in the temporary directory (Vert.x's own cache is not its business). */
  private static List<Path> demoEntries(Path tmp) throws IOException {
    try (Stream<Path> entries = Files.list(tmp)) {
      return entries.filter(p -> p.getFileName().toString().startsWith("routesync")).toList();
    }
  }
}
