package dev.routesync.kube.events;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs a failed Event write at most once a minute per {@link Failure}, with how many were not
 * logged since: an API server that refuses every write must not flood the agent's log.
 *
 * <p>Threading: any thread.
 */
final class FailureLog {

  /** Why a write failed, for the log's once-a-minute budget: a fixed set. */
  enum Failure {
    FORBIDDEN("forbidden: the agent's ClusterRole needs create and patch on events.k8s.io events"),
    NOT_FOUND("not found (the namespace is gone?)"),
    CONFLICT("conflict"),
    INVALID("rejected as invalid"),
    UNREACHABLE("API server unreachable"),
    SERVER_ERROR("API server error"),
    OTHER("unexpected error");

    final String meaning;

    Failure(String meaning) {
      this.meaning = meaning;
    }
  }

  static final long INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);
  private static final Logger LOG = LoggerFactory.getLogger(EventRecorder.class);

  private final LongSupplier nanoTime;
  private final Map<Failure, long[]> state = new EnumMap<>(Failure.class);

  FailureLog(LongSupplier nanoTime) {
    this.nanoTime = nanoTime;
  }

  void failed(Failure failure, String event, String detail) {
    long suppressed;
    synchronized (state) {
      long now = nanoTime.getAsLong();
      // [0]: when last logged, [1]: failures not logged since, [2]: 1 once logged at all
      long[] s = state.computeIfAbsent(failure, f -> new long[3]);
      if (s[2] == 1 && now - s[0] < INTERVAL_NANOS) {
        s[1]++;
        return;
      }
      suppressed = s[1];
      s[0] = now;
      s[1] = 0;
      s[2] = 1;
    }
    LOG.warn(
        "Cannot write Kubernetes Event {}: {} ({}).{} Failures are counted; this kind is logged at"
            + " most once a minute",
        event,
        failure.meaning,
        detail,
        suppressed == 0 ? "" : " " + suppressed + " more since the last message.");
  }
}
