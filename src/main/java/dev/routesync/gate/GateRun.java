package dev.routesync.gate;

import dev.routesync.sync.Scheduler;
import dev.routesync.units.Durations;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The gate's clock and verdict, driven by "something changed" calls: each one evaluates the latest
 * {@link Snapshot} and
 *
 * <ul>
 *   <li>fails at once on a certain reason ({@code NamedPortNotFound}, {@code ProtocolMismatch}) for
 *       any expected pod: waiting cannot make that pod an endpoint, and the old pods still serve;
 *   <li>starts the settle clock when the pass condition first holds, and passes once it has held
 *       for the whole settle time; a break resets the clock, which starts again from zero the next
 *       time the condition holds;
 *   <li>errs at once when the gate cannot judge (a named Service that does not exist);
 *   <li>fails at the timeout otherwise, with the last evaluation's missing pods and reasons.
 * </ul>
 *
 * <p>Threading: every method runs on the {@link Scheduler}'s one thread (tests use a fake clock and
 * call it directly), so no state here is shared.
 */
public final class GateRun {

  private final Targets targets;
  private final GateSettings settings;
  private final Scheduler scheduler;
  private final Supplier<Snapshot> snapshots;
  private final Consumer<String> progress;
  private final Consumer<Verdict> done;
  private final Progress lines = new Progress();

  private long startNanos;
  private boolean started;
  private boolean finished;
  private Evaluation last;
  // When the pass condition last started to hold; null while it does not.
  private Long passingSinceNanos;
  private Scheduler.Cancellable settleTimer;
  private Scheduler.Cancellable timeoutTimer;

  /**
   * @param snapshots the current state of the cluster, read at every evaluation
   * @param progress receives progress lines (stderr)
   * @param done receives the verdict, once
   */
  public GateRun(
      Targets targets,
      GateSettings settings,
      Scheduler scheduler,
      Supplier<Snapshot> snapshots,
      Consumer<String> progress,
      Consumer<Verdict> done) {
    this.targets = Objects.requireNonNull(targets, "targets");
    this.settings = Objects.requireNonNull(settings, "settings");
    this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
    this.snapshots = Objects.requireNonNull(snapshots, "snapshots");
    this.progress = Objects.requireNonNull(progress, "progress");
    this.done = Objects.requireNonNull(done, "done");
  }

  /**
   * Starts the timeout at {@code startNanos} (on the scheduler's clock: when the watches have
   * listed), then evaluates.
   */
  public void start(long startNanos) {
    if (started) {
      throw new IllegalStateException("started already");
    }
    started = true;
    this.startNanos = startNanos;
    long remaining = Math.max(0, startNanos + settings.timeout().toNanos() - scheduler.nanoTime());
    timeoutTimer = scheduler.schedule(remaining, this::timedOut);
    changed();
  }

  /** The cluster changed: evaluate again. */
  public void changed() {
    if (!started || finished) {
      return;
    }
    Evaluation evaluation = Evaluation.of(snapshots.get(), targets);
    last = evaluation;
    lines.changes(evaluation).forEach(this::report);

    Optional<String> cannot = evaluation.cannotEvaluate();
    if (cannot.isPresent()) {
      finish(
          Verdict.Result.ERROR,
          "cannot evaluate: " + cannot.get() + " in namespace " + targets.namespace());
      return;
    }
    Optional<MissingPod> certain = evaluation.firstCertain();
    if (certain.isPresent()) {
      MissingPod pod = certain.get();
      finish(
          Verdict.Result.FAIL,
          "fail: pod "
              + pod.pod()
              + " is Ready but can never be an endpoint: "
              + pod.missing().reason().label()
              + ", "
              + pod.missing().message());
      return;
    }
    if (evaluation.passes(settings.allowEmpty())) {
      holds();
    } else {
      broken();
    }
  }

  /** The gate cannot go on: it lost the cluster (a watch forbidden). */
  public void cannotEvaluate(String message) {
    if (!finished) {
      finish(Verdict.Result.ERROR, "cannot evaluate: " + message);
    }
  }

  public boolean finished() {
    return finished;
  }

  private void holds() {
    if (passingSinceNanos != null) {
      return;
    }
    passingSinceNanos = scheduler.nanoTime();
    if (settings.settle().isZero()) {
      finish(Verdict.Result.PASS, passSummary());
      return;
    }
    report(
        "every expected pod is a ready endpoint; settling for "
            + Durations.format(settings.settle()));
    settleTimer = scheduler.schedule(settings.settle().toNanos(), this::settled);
  }

  private void broken() {
    if (passingSinceNanos == null) {
      return;
    }
    report(
        "the condition broke after "
            + Progress.elapsed(scheduler.nanoTime() - passingSinceNanos)
            + " of settling; the settle clock starts again when it holds");
    passingSinceNanos = null;
    settleTimer.cancel();
    settleTimer = null;
  }

  private void settled() {
    if (!finished
        && passingSinceNanos != null
        && scheduler.nanoTime() - passingSinceNanos >= settings.settle().toNanos()) {
      finish(Verdict.Result.PASS, passSummary());
    }
  }

  private void timedOut() {
    if (finished) {
      return;
    }
    // The caches may have moved since the last event was handled: judge on the latest.
    changed();
    if (finished) {
      return;
    }
    String why;
    if (passingSinceNanos != null) {
      why =
          "the condition held for only "
              + Progress.elapsed(scheduler.nanoTime() - passingSinceNanos)
              + " of the "
              + Durations.format(settings.settle())
              + " settle time";
    } else {
      long missing =
          last.services().stream()
              .flatMap(s -> s.ports().stream())
              .mapToLong(p -> p.missing().size())
              .sum();
      boolean empty =
          last.services().stream()
              .flatMap(s -> s.ports().stream())
              .anyMatch(p -> p.expected() == 0);
      why =
          missing > 0
              ? missing
                  + (missing == 1 ? " expected pod is" : " expected pods are")
                  + " not a ready endpoint"
              : empty
                  ? "a Service has no expected pods (--allow-empty accepts that)"
                  : "not passing";
    }
    finish(
        Verdict.Result.FAIL,
        "fail: timed out after " + Durations.format(settings.timeout()) + ": " + why);
  }

  private String passSummary() {
    long ports =
        last.services().stream()
            .filter(ServiceResult::evaluated)
            .mapToLong(s -> s.ports().size())
            .sum();
    long services = last.services().stream().filter(ServiceResult::evaluated).count();
    return "pass: every expected pod is a ready endpoint of "
        + (ports == 1 ? "its port" : "all " + ports + " ports")
        + " of "
        + (services == 1 ? "1 Service" : services + " Services")
        + (settings.settle().isZero() ? "" : ", for " + Durations.format(settings.settle()));
  }

  private void report(String line) {
    progress.accept("gate +" + Progress.elapsed(scheduler.nanoTime() - startNanos) + ": " + line);
  }

  private void finish(Verdict.Result result, String summary) {
    finished = true;
    if (settleTimer != null) {
      settleTimer.cancel();
    }
    if (timeoutTimer != null) {
      timeoutTimer.cancel();
    }
    done.accept(
        new Verdict(result, summary, Optional.ofNullable(last), scheduler.nanoTime() - startNanos));
  }
}
