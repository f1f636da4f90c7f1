package dev.routesync;

import dev.routesync.kube.events.EventRecorder;
import dev.routesync.kube.events.EventSubject;
import dev.routesync.kube.watch.ResourceWatch;
import dev.routesync.observe.HeapBudget;
import dev.routesync.observe.Metrics;
import dev.routesync.serve.Readiness;
import dev.routesync.units.Durations;
import io.micrometer.core.instrument.Counter;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent part that holds every watch back once the heap budget is spent, so that a cluster that
 * outgrew the agent's memory leaves each node serving its last table (stale) instead of
 * crash-looping on an {@code OutOfMemoryError}, on every node at once.
 *
 * <p>Parked, a watch gives up the list it was building (the largest thing that grows) and stops
 * resuming; the table is served as it stands and turns stale after {@code --relist-after}. The
 * agent says why in its log, on {@code /readyz} ({@code warnings}, or the reason while it has no
 * table yet), in {@code routesync_watches_parked} and in a Warning Event on its Node, each naming
 * what to raise. After {@link #RESUME_AFTER} the watches list again: a cluster that shrank, or a
 * spike that passed, needs no restart, and one that did not parks them again at the next full
 * collection.
 *
 * <p>Threading: the budget notifies on the JVM's notification thread, which only hops onto the sync
 * context; all state is kept there.
 */
final class HeapGuard implements AgentPart {

  private static final Logger LOG = LoggerFactory.getLogger(HeapGuard.class);

  /** How long the watches stay parked before they try again. */
  static final Duration RESUME_AFTER = Duration.ofMinutes(10);

  /** What an operator can do about it; the same words in the log, the probe and the Event. */
  static final String REMEDY =
      "raise the heap (-Xmx in JAVA_TOOL_OPTIONS) and the container's memory limit together, sized"
          + " by docs/install.md's formula for the cluster's endpoints, or opt fewer Services in"
          + " (--label-selector, --namespaces)";

  private final HeapBudget budget;
  private final Vertx vertx;
  private final Context syncContext;
  private final List<ResourceWatch<?>> watches;
  private final Readiness readiness;
  private final Counter spentCount;
  // Made at the first spend, on the sync context: most agents never need it. Empty without a node.
  private final Supplier<Optional<EventRecorder>> newEvents;
  private final String nodeName;
  private final Duration resumeAfter;
  private Optional<EventRecorder> events;
  private volatile boolean parked;
  private long resumeTimer = -1;
  private boolean stopped;

  HeapGuard(
      HeapBudget budget,
      Vertx vertx,
      Context syncContext,
      List<ResourceWatch<?>> watches,
      Readiness readiness,
      Metrics metrics,
      Supplier<Optional<EventRecorder>> newEvents,
      String nodeName,
      Duration resumeAfter) {
    this.budget = budget;
    this.vertx = vertx;
    this.syncContext = syncContext;
    this.watches = List.copyOf(watches);
    this.readiness = readiness;
    this.spentCount = metrics.bindHeapBudget(budget, this::parked);
    this.newEvents = newEvents;
    this.nodeName = nodeName;
    this.resumeAfter = resumeAfter;
  }

  @Override
  public String name() {
    return "heap guard";
  }

  /** Whether the watches are held back now. Any thread. */
  boolean parked() {
    return parked;
  }

  @Override
  public Future<Void> start() {
    budget.arm(spent -> syncContext.runOnContext(ignored -> onSpent(spent)));
    return Future.succeededFuture();
  }

  private void onSpent(HeapBudget.Spent spent) {
    spentCount.increment();
    if (stopped || parked) {
      return; // every full collection above the budget notifies; one park is enough
    }
    watches.forEach(ResourceWatch::park);
    String why = spent.describe() + "; " + REMEDY;
    readiness.watchesHeldBack(why);
    parked = true; // last: whoever reads it sees the watches parked and readiness saying why
    LOG.atError()
        .addKeyValue("liveBytes", spent.liveBytes())
        .addKeyValue("budgetBytes", spent.budgetBytes())
        .log(
            "heap budget spent: {}. Watches parked, the table is served as it stands (stale);"
                + " they list again in {}",
            why,
            Durations.format(resumeAfter));
    warnOnNode(spent);
    resumeTimer =
        vertx.setTimer(resumeAfter.toMillis(), id -> resume()); // set here: fires on this context
  }

  private void resume() {
    resumeTimer = -1;
    if (stopped || !parked) {
      return;
    }
    parked = false;
    readiness.watchesResumed();
    LOG.info("heap guard: listing again after {} parked", Durations.format(resumeAfter));
    watches.forEach(ResourceWatch::resume);
  }

  private void warnOnNode(HeapBudget.Spent spent) {
    if (nodeName.isEmpty()) {
      return; // no object to hang the Event on; the log and the metric say it
    }
    if (events == null) {
      events = newEvents.get();
    }
    events.ifPresent(
        recorder ->
            recorder.warn(
                new EventSubject(
                    "heap-budget/" + nodeName,
                    EventSubject.coreReference("Node", null, nodeName, null),
                    null,
                    "HeapBudgetSpent",
                    "Watching",
                    "routesync's watches are parked and its table is served stale: "
                        + spent.describe()
                        + "; "
                        + REMEDY)));
  }

  @Override
  public Future<Void> stop() {
    budget.disarm();
    return AgentPart.on(
        syncContext,
        () -> {
          stopped = true;
          if (resumeTimer != -1) {
            vertx.cancelTimer(resumeTimer);
          }
          if (events != null) {
            events.ifPresent(EventRecorder::close);
          }
        });
  }
}
