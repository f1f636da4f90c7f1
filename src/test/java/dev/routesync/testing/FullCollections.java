package dev.routesync.testing;

import java.time.Duration;
import java.util.concurrent.Callable;
import org.awaitility.Awaitility;

/**
 * Full collections, forced until something the JVM reports after one has happened: what a heap
 * budget's collection-usage threshold is checked against. {@code System.gc()} is a full collection
 * with the collectors the tests run under (Serial, G1), so each poll is one more.
 */
public final class FullCollections {

  private static final Duration POLL = Duration.ofMillis(200);

  private FullCollections() {}

  /** Forces a full collection every 200 ms until {@code done}, for at most {@code atMost}. */
  public static void until(Callable<Boolean> done, Duration atMost) {
    Awaitility.await()
        .atMost(atMost)
        .pollInterval(POLL)
        .until(
            () -> {
              System.gc();
              return done.call();
            });
  }
}
