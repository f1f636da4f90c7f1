package dev.routesync.serve;

import java.util.Objects;

/**
 * Whether the agent is alive, as {@code /healthz} answers it: alive, or not alive with the reason
 * that the probe's 503 carries.
 *
 * @param reason why the agent is not alive; empty when it is
 */
public record LivenessVerdict(boolean alive, String reason) {

  public static final LivenessVerdict ALIVE = new LivenessVerdict(true, "");

  public LivenessVerdict {
    Objects.requireNonNull(reason, "reason");
    if (alive != reason.isEmpty()) {
      throw new IllegalArgumentException(
          alive ? "an alive verdict has no reason" : "a verdict of not alive needs a reason");
    }
  }

  /** Not alive, because of {@code reason}. */
  public static LivenessVerdict notAlive(String reason) {
    return new LivenessVerdict(false, reason);
  }
}
