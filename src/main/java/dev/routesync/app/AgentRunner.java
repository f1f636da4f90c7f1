package dev.routesync.app;

import dev.routesync.Agent;
import dev.routesync.startup.BadConfigurationException;
import io.vertx.core.Future;
import java.io.PrintWriter;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.ExitCode;

/** Runs a started agent until the JVM is asked to stop (SIGTERM, SIGINT), then stops it. */
public final class AgentRunner {

  private static final Logger LOG = LoggerFactory.getLogger(AgentRunner.class);
  private static final long STOP_MARGIN_MILLIS = 3000;

  private AgentRunner() {}

  /** Blocks until shutdown; returns the process exit code. A failed start is one line on err. */
  public static int run(Future<Agent> starting, PrintWriter err) {
    Agent agent;
    try {
      agent = starting.toCompletionStage().toCompletableFuture().join();
    } catch (RuntimeException e) {
      return startFailed(e, err);
    }
    return awaitShutdown(agent::stop, agent.config().shutdownTimeout());
  }

  /**
   * Reports a failed start in one line; returns the exit code: 2 for configuration the operator
   * must change ({@link BadConfigurationException}), 1 for anything else.
   */
  public static int startFailed(Throwable error, PrintWriter err) {
    Throwable cause =
        error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    err.println("routesync: cannot start: " + cause.getMessage());
    err.flush();
    return cause instanceof BadConfigurationException ? ExitCode.USAGE : ExitCode.SOFTWARE;
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
