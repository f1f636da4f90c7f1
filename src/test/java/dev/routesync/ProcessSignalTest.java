package dev.routesync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.routesync.testing.GrpcJavaClient;
import dev.routesync.testing.WatchRecorder;
import io.grpc.Status;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The real process: {@code routesync demo}, stopped with SIGTERM as kubelet stops a pod. */
class ProcessSignalTest {

  /**
   * Only stops a hang. The agent's drain timeout is longer still ({@code --shutdown-timeout 5m},
   * the longest allowed), so an exit inside this bound shows the drain ended when the streams did,
   * not when its timeout ran out, without asserting how fast a loaded machine is.
   */
  private static final Duration HANG = Duration.ofSeconds(60);

  @TempDir Path dir;

  @Test
  void sigtermDrainsWatchStreamsRemovesTheSocketAndExitsZeroWithoutWaitingForTheTimeout()
      throws Exception {
    Path socket = dir.resolve("rs.sock");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process process =
        new ProcessBuilder(
                java,
                "-cp",
                System.getProperty("java.class.path"),
                "dev.routesync.app.Main",
                "demo",
                "--socket",
                socket.toString(),
                "--admin-port",
                "0",
                "--shutdown-timeout",
                "5m")
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("demo.log").toFile())
            .start();
    try (GrpcJavaClient grpc = new GrpcJavaClient(socket)) {
      // A cold JVM's start (mock API server, agent, first list) is what this waits for, not what
      // is tested: at a load average of 15 on 2 cores it took 22-25 s.
      await()
          .atMost(Duration.ofSeconds(60))
          .ignoreExceptions()
          .until(() -> grpc.resolve("shop", "cart").getEndpointsCount() >= 2);
      List<WatchRecorder> watchers = grpc.watchAll(10, Duration.ofSeconds(10));

      process.destroy(); // SIGTERM
      assertThat(process.waitFor(HANG.toSeconds(), TimeUnit.SECONDS)).as("exited").isTrue();

      assertThat(process.exitValue()).as(log()).isZero();
      assertThat(socket).doesNotExist();
      await().atMost(HANG).until(() -> watchers.stream().allMatch(w -> w.ended() != null));
      for (WatchRecorder watcher : watchers) {
        assertThat(watcher.ended().getCode()).isEqualTo(Status.Code.OK);
      }
    } finally {
      process.destroyForcibly();
    }
  }

  private String log() throws Exception {
    File log = dir.resolve("demo.log").toFile();
    return log.exists() ? Files.readString(log.toPath()) : "";
  }
}
