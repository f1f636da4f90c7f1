package dev.routesync.observe;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Handler;
import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's Vert.x handler for exceptions no code of the agent's handled (Vert.x logs each at
 * ERROR with its stack, as {@code ContextImpl - Unhandled exception}, without one).
 *
 * <p>Most are a connection's end racing with work on it, and say nothing an operator can act on: a
 * peer's reset or broken pipe, fabric8's informer still asking its HTTP client for a list while the
 * agent closes it ({@code Client is closed}), a request failed twice as its connection closes
 * ({@code Promise already completed} from the close). Those are counted and logged at DEBUG. Any
 * other is a defect worth a look: logged at WARN with its stack, at most once every ten seconds
 * (the ones between are counted and the next line says how many), so a storm of them cannot flood
 * the log.
 */
public final class UnhandledExceptions implements Handler<Throwable> {

  private static final Logger LOG = LoggerFactory.getLogger(UnhandledExceptions.class);
  private static final long WARN_EVERY_NANOS = TimeUnit.SECONDS.toNanos(10);

  private final Counter connectionEnds;
  private final Counter others;
  private final LongSupplier nanoTime;
  private long lastWarnNanos;
  private boolean warnedOnce;
  private long suppressed;

  public UnhandledExceptions(MeterRegistry registry, LongSupplier nanoTime) {
    this.connectionEnds = counter(registry, "connection_end");
    this.others = counter(registry, "other");
    this.nanoTime = nanoTime;
  }

  private static Counter counter(MeterRegistry registry, String kind) {
    return Counter.builder("routesync.unhandled.exceptions")
        .description(
            "Exceptions no handler took (Vert.x's 'Unhandled exception'), by kind: connection_end"
                + " (a connection's end racing with work on it; logged at DEBUG) or other (a"
                + " defect; logged at WARN)")
        .tag("kind", kind)
        .register(registry);
  }

  @Override
  public void handle(Throwable error) {
    if (isConnectionEnd(error)) {
      connectionEnds.increment();
      LOG.debug("unhandled at a connection's end: {}", error.toString());
      return;
    }
    others.increment();
    long now = nanoTime.getAsLong();
    synchronized (this) {
      if (warnedOnce && now - lastWarnNanos < WARN_EVERY_NANOS) {
        suppressed++;
        return;
      }
      long before = suppressed;
      warnedOnce = true;
      lastWarnNanos = now;
      suppressed = 0;
      LOG.warn(
          "unhandled exception{}: {}",
          before == 0 ? "" : " (" + before + " more since the last of these lines)",
          error.toString(),
          error);
    }
  }

  static boolean isConnectionEnd(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause()) {
      if (t instanceof ClosedChannelException || t instanceof IOException) {
        return true;
      }
      if (t instanceof IllegalStateException) {
        String message = String.valueOf(t.getMessage());
        if (message.equals("Client is closed")) {
          return true;
        }
        if (message.equals("Promise already completed") && raisedByAClose(t)) {
          return true;
        }
      }
    }
    return false;
  }

  // Only when a connection's close raised it: elsewhere a promise completed twice is a defect.
  private static boolean raisedByAClose(Throwable t) {
    for (StackTraceElement frame : t.getStackTrace()) {
      String method = frame.getMethodName();
      if (method.equals("handleClosed") || method.equals("channelInactive")) {
        return true;
      }
    }
    return false;
  }
}
