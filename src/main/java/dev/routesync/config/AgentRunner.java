package dev.routesync.config;

import dev.routesync.Agent;
import io.vertx.core.Future;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Runs a started agent until the JVM is asked to stop (SIGTERM, SIGINT), then stops it. */
public final class AgentRunner {

  private static final Logger LOG = LoggerFactory.getLogger(AgentRunner.class);
  private static final long STOP_MARGIN_MILLIS = 3000;

  private AgentRunner() {}

  /** Blocks until shutdown; returns the process exit code. */
  public static int run(Future<Agent> starting) {
    Agent agent;
    try {
      agent = starting.toCompletionStage().toCompletableFuture().join();
    } catch (RuntimeException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      System.err.println("routesync: cannot start: " + cause.getMessage());
      return 1;
    }
    return awaitShutdown(agent::stop, agent.config().shutdownTimeout());
  }

  /** Blocks until the JVM shuts down, running {@code stop} in the shutdown hook. */
  public static int awaitShutdown(
      java.util.function.Supplier<Future<Void>> stop, java.time.Duration shutdownTimeout) {
    // The agent bounds its own drain by the timeout; the margin covers closing Vert.x after it.
    long limitMillis = shutdownTimeout.toMillis() + STOP_MARGIN_MILLIS;
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  LOG.info("shutting down");
                  int code = 0;
                  try {
                    stop.get()
                        .toCompletionStage()
                        .toCompletableFuture()
                        .get(limitMillis, TimeUnit.MILLISECONDS);
                  } catch (Exception e) {
                    LOG.warn("shutdown did not finish cleanly: {}", e.toString());
                    code = 1;
                  } finally {
                    stopped.countDown();
                  }
                  // A signal-initiated JVM exit reports 128+signal; a clean stop is success, and
                  // the orchestrator should see 0 (main's System.exit blocks during shutdown).
                  Runtime.getRuntime().halt(code);
                },
                "routesync-shutdown"));
    try {
      stopped.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return 0;
  }
}
