package dev.routesync.gate;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * One gate run against a cluster: checks access, starts the watches, then lets {@link GateRun}
 * judge on the gate's own thread. Events are coalesced: however many arrive while an evaluation is
 * queued or running, they cost one more evaluation.
 */
final class GateSession {

  private GateSession() {}

  static Verdict run(
      KubernetesClient client,
      Targets targets,
      GateSettings settings,
      Duration requestTimeout,
      Duration verdictWithin,
      Consumer<String> progress) {
    try (ExecutorScheduler scheduler = new ExecutorScheduler()) {
      long start = scheduler.nanoTime();
      CompletableFuture<Verdict> verdict = new CompletableFuture<>();
      AtomicBoolean queued = new AtomicBoolean();
      GateRun[] run = new GateRun[1];
      Runnable changed =
          () -> {
            if (queued.compareAndSet(false, true)) {
              scheduler.execute(
                  () -> {
                    queued.set(false);
                    run[0].changed();
                  });
            }
          };
      Consumer<String> lost = message -> scheduler.execute(() -> run[0].cannotEvaluate(message));
      try (ClusterWatch watch = new ClusterWatch(client, targets, changed, lost)) {
        run[0] =
            new GateRun(targets, settings, scheduler, watch::snapshot, progress, verdict::complete);
        watch.checkAccess();
        watch.start(requestTimeout);
        // --timeout counts from here: connecting and listing are bounded by --request-timeout,
        // so a slow start (a cold JVM, a large namespace) does not eat the rollout's time.
        scheduler.execute(() -> run[0].start(scheduler.nanoTime()));
        return verdict.get(verdictWithin.toMillis(), TimeUnit.MILLISECONDS);
      } catch (ClusterWatch.CannotEvaluate e) {
        return Verdict.cannotEvaluate(
            "cannot evaluate: " + e.getMessage(), scheduler.nanoTime() - start);
      } catch (TimeoutException | ExecutionException e) {
        return Verdict.cannotEvaluate(
            "cannot evaluate: the gate reached no verdict within " + verdictWithin,
            scheduler.nanoTime() - start);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return Verdict.cannotEvaluate("cannot evaluate: interrupted", scheduler.nanoTime() - start);
      }
    }
  }
}
