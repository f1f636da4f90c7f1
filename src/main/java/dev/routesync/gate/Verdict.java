package dev.routesync.gate;

import java.util.Objects;
import java.util.Optional;

/**
 * How a gate run ended.
 *
 * @param result pass, fail or error
 * @param summary one line for people
 * @param evaluation the last evaluation, empty when the gate could not evaluate at all (the API
 *     server unreachable, forbidden)
 * @param elapsedNanos from the start of the run to the verdict
 */
public record Verdict(
    Result result, String summary, Optional<Evaluation> evaluation, long elapsedNanos) {

  public Verdict {
    Objects.requireNonNull(result, "result");
    Objects.requireNonNull(summary, "summary");
    Objects.requireNonNull(evaluation, "evaluation");
  }

  /** A verdict from before any evaluation: the cluster could not be read. */
  public static Verdict cannotEvaluate(String message, long elapsedNanos) {
    return new Verdict(Result.ERROR, message, Optional.empty(), elapsedNanos);
  }

  /** The outcome, with its exit code and the word {@code -o json} prints. */
  public enum Result {
    /** Every expected pod is a ready endpoint of every port, for the whole settle time. */
    PASS(0, "pass"),
    /** A certain reason was seen, or the timeout came first. */
    FAIL(1, "fail"),
    /** The gate could not judge: the API server, RBAC, or a Service that does not exist. */
    ERROR(3, "error");

    private final int exitCode;
    private final String label;

    Result(int exitCode, String label) {
      this.exitCode = exitCode;
      this.label = label;
    }

    public int exitCode() {
      return exitCode;
    }

    public String label() {
      return label;
    }
  }
}
