package dev.routesync.testing;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * Stopping a child process that a test drives over stdin and reads line by line on a thread of its
 * own (the grpc-js xDS client, the e2e network-namespace probe).
 */
public final class LineProcess {

  private LineProcess() {}

  /**
   * Closes its stdin, which tells it to exit, and gives it 3 s; then kills it (5 s more to go), and
   * lets the reader thread drain what it printed for up to 2 s.
   */
  public static void stop(Process process, Thread reader) throws IOException, InterruptedException {
    try {
      process.getOutputStream().close();
      if (!process.waitFor(3, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
      }
    } finally {
      if (process.isAlive()) {
        process.destroyForcibly();
      }
      reader.join(TimeUnit.SECONDS.toMillis(2));
    }
  }
}
