package dev.routesync.kube.watch;

import dev.routesync.errors.Causes;
import dev.routesync.sync.Scheduler;
import dev.routesync.units.Durations;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.Random;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a watch on one resource kind alive forever and decides when to relist; what the objects
 * mean is its {@link WatchSink}'s business.
 *
 * <p>Blips are fabric8's job: its watch manager reconnects from the last resourceVersion, and a 410
 * Gone makes it relist in place. Everything else is ours:
 *
 * <ul>
 *   <li>A failed list or watch never stops the agent: the failed generation keeps serving its last
 *       known cache while a new generation is started after a jittered exponential {@link Backoff}.
 *   <li>Once a disconnection lasts longer than {@code relistAfter} ({@link Connectivity}), the
 *       current watch stops resuming (its cache is still served) and a new generation lists beside
 *       it as soon as the server answers, so deletions missed while away (which a server resuming a
 *       watch may never replay) cannot survive as ghosts. Every {@code resync} ({@link
 *       ResyncTimer}), the same happens while connected.
 *   <li>A watch that looks connected but has delivered no event and no bookmark for {@code
 *       watchSilence} ({@link SilenceWatchdog}: a black-holed connection, a stuck proxy) gets a new
 *       generation the same way, beside the served one. A new generation that has not listed and
 *       started watching within {@code watchSilence} (a watch handshake never answered) fails and
 *       is retried with backoff.
 *   <li>When a new generation has synced it replaces the current one, and the sink is handed both
 *       at once ({@link WatchSink#replaced}); until then the new generation's events are not passed
 *       on.
 * </ul>
 *
 * <p>Threading: all state lives on the sync context. {@link Generation}s report on fabric8's
 * threads; their reports only count the event and hop onto that context.
 */
public final class ResourceWatch<T extends HasMetadata> {

  private static final Logger LOG = LoggerFactory.getLogger(ResourceWatch.class);

  private final ResourceSpec<T> spec;
  private final WatchSink<T> sink;
  private final Context context;
  private final Scheduler scheduler;
  private final WatchObserver observer;
  private final RetryTimer retry;
  private final ResyncTimer resyncTimer;
  private final Connectivity connectivity;
  private final ConnectivityCheck connectivityCheck;
  private final SilenceWatchdog silence;
  // False while the API server says it cannot reach etcd: its watches are then open but silent.
  private final BooleanSupplier storageReachable;
  private final Reports reports = new Reports();
  private final Promise<Void> initialSync = Promise.promise();

  private Generation<T> current;
  private Generation<T> pending;
  // Gives the pending generation up if it has not listed and started watching in time.
  private Scheduler.Cancellable pendingDeadline;
  private final long startTimeoutNanos;
  private int generations;
  private boolean stopped;
  // Held back (the heap budget is spent): no list, no watch, the sink keeps what it has.
  private boolean parked;

  /**
   * @param context the sync context: all state, the timers and the sink run there
   * @param scheduler timers and the clock, on {@code context}
   * @param storageReachable whether the API server can reach its storage (any thread): while it
   *     cannot, the watch counts as down, though its connection stays open, and is not relisted
   */
  public ResourceWatch(
      ResourceSpec<T> spec,
      RecoverySettings settings,
      WatchSink<T> sink,
      Context context,
      Scheduler scheduler,
      WatchObserver observer,
      Random random,
      BooleanSupplier storageReachable) {
    this.storageReachable = storageReachable;
    this.spec = spec;
    this.sink = sink;
    this.context = context;
    this.scheduler = scheduler;
    this.observer = observer;
    this.retry =
        new RetryTimer(
            scheduler,
            new Backoff(settings.backoffMin(), settings.backoffMax(), random),
            () -> startGeneration(RelistReason.FAILURE));
    this.resyncTimer =
        new ResyncTimer(
            scheduler, settings.resync(), random, () -> startGeneration(RelistReason.RESYNC));
    this.connectivity = new Connectivity(spec.kind(), scheduler, observer);
    this.connectivityCheck =
        new ConnectivityCheck(
            scheduler,
            settings.connectivityCheck(),
            settings.relistAfter(),
            connectivity,
            new Sampled());
    this.silence =
        new SilenceWatchdog(
            spec.kind(),
            scheduler,
            settings.connectivityCheck(),
            settings.watchSilence(),
            observer,
            new Listened());
    this.startTimeoutNanos = settings.watchSilence().toNanos();
  }

  /** How long the watch has been down, or 0 while it is up. Any thread. */
  public long disconnectedNanos() {
    return connectivity.disconnectedNanos();
  }

  /** Starts watching. Call on the sync context. */
  public void start() {
    startGeneration(RelistReason.INITIAL);
    connectivityCheck.start();
    silence.start();
    resyncTimer.start();
  }

  /** Completes once the first generation has synced and been handed to the sink. */
  public Future<Void> initialSync() {
    return initialSync.future();
  }

  /** Stops every informer and timer. Call on the sync context. */
  public void stop() {
    stopped = true;
    retry.cancel();
    resyncTimer.stop();
    connectivityCheck.stop();
    silence.stop();
    cancelPendingDeadline();
    if (pending != null) {
      pending.stop();
      pending = null;
    }
    if (current != null) {
      current.stop();
    }
    connectivity.stopped();
  }

  /** Starts a relist now unless one is already under way. Call on the sync context. */
  public void relist(RelistReason reason) {
    startGeneration(reason);
  }

  /**
   * Stops listing and watching until {@link #resume}: a list under way is given up (its objects
   * become garbage), the served generation stops resuming, and no relist starts, whatever the
   * timers say. The sink keeps what it was last handed, and the watch counts as down from now on,
   * so the table turns stale after {@code --relist-after} as in an outage. For an agent whose heap
   * cannot hold another list: serving what it has beats an OutOfMemoryError. Call on the sync
   * context.
   */
  public void park() {
    if (stopped || parked) {
      return;
    }
    parked = true;
    retry.cancel();
    cancelPendingDeadline();
    if (pending != null) {
      pending.stop();
      pending = null;
    }
    if (current != null) {
      current.markFailed();
      current.stop(); // its cache stays readable for the sink
    }
    connectivity.down();
    LOG.warn("{} watch parked: no list and no watch until resumed", spec.kind());
  }

  /** Lists afresh after {@link #park}; nothing when not parked. Call on the sync context. */
  public void resume() {
    if (stopped || !parked) {
      return;
    }
    parked = false;
    startGeneration(RelistReason.RESUMED);
  }

  private void startGeneration(RelistReason reason) {
    if (stopped || parked || pending != null) {
      return;
    }
    retry.cancel();
    int id = ++generations;
    LOG.atInfo()
        .addKeyValue("kind", spec.kind())
        .addKeyValue("reason", reason.label())
        .addKeyValue("generation", id)
        .log("listing {} ({}, generation {})", spec.kind(), reason.label(), id);
    observer.relist(reason);
    Generation<T> started = new Generation<>(id, spec, reports, scheduler::nanoTime);
    pending = started;
    // A list is bounded by the client's request timeout, a watch's handshake by nothing: one that
    // a stuck proxy never answers would keep this generation pending for good, and while it is
    // pending no other can start and the silence watchdog stands aside. Give it up, as a failure,
    // once it has been as silent as a hung watch may be.
    pendingDeadline = scheduler.schedule(startTimeoutNanos, () -> startTimedOut(started));
    started.start();
  }

  private void startTimedOut(Generation<T> generation) {
    pendingDeadline = null;
    if (stopped || generation != pending) {
      return;
    }
    onFailed(
        generation,
        new java.util.concurrent.TimeoutException(
            "not listed and watching within --watch-silence ("
                + Durations.formatNanos(startTimeoutNanos)
                + ")"));
  }

  private void cancelPendingDeadline() {
    if (pendingDeadline != null) {
      pendingDeadline.cancel();
      pendingDeadline = null;
    }
  }

  private void onSynced(Generation<T> generation) {
    if (stopped || generation != pending) {
      return;
    }
    cancelPendingDeadline();
    pending = null;
    Generation<T> previous = current;
    current = generation;
    if (previous != null) {
      previous.stop(); // its cache stays readable for the sink
    }
    retry.succeeded();
    if (storageReachable.getAsBoolean()) {
      // Else a list the watch cache answered, while nothing new can reach it: still down.
      connectivity.up();
    }
    observer.listed();
    sink.replaced(previous, generation);
    initialSync.tryComplete();
  }

  private void onFailed(Generation<T> generation, Throwable error) {
    if (stopped || parked) {
      return; // parked: what failed is what park() stopped
    }
    generation.markFailed();
    if (generation == pending) {
      cancelPendingDeadline();
      pending = null;
      generation.stop();
    } else if (generation != current) {
      return;
    }
    connectivity.down();
    long delay = retry.failed();
    LOG.warn(
        "{} failed ({}); keeping the last known state, retrying in {}",
        generation,
        rootMessage(error),
        Durations.formatNanos(delay));
  }

  /** A generation is served, it has not failed, and no relist is under way or scheduled. */
  private boolean settled() {
    return current != null && !current.isFailed() && pending == null && !retry.isScheduled();
  }

  private static String rootMessage(Throwable error) {
    Throwable root = Causes.root(error);
    return root.getClass().getSimpleName() + ": " + root.getMessage();
  }

  /** What the connectivity check samples and when it declares the watch stale. */
  private final class Sampled implements ConnectivityCheck.Watched {

    @Override
    public boolean watching() {
      return current != null && current.isWatching() && storageReachable.getAsBoolean();
    }

    @Override
    public boolean relistWouldHelp() {
      // Without storage a list could only come from the watch cache: nothing a relist would learn.
      return settled() && storageReachable.getAsBoolean();
    }

    @Override
    public void stale(long outageNanos) {
      // Stop resuming (its cache keeps being served) and list afresh beside it; the new
      // generation retries with backoff until the server answers. One list and one watch per
      // agent when the server comes back, instead of a replayed watch plus a relist.
      current.markFailed();
      current.stop();
      startGeneration(RelistReason.OUTAGE);
    }
  }

  /** What the silence watchdog samples, and what it does about a hung watch. */
  private final class Listened implements SilenceWatchdog.Watched {

    @Override
    public boolean listening() {
      return settled() && current.isWatching();
    }

    @Override
    public Object progress() {
      return current.resourceVersions();
    }

    @Override
    public void silent(long silentNanos) {
      // Unlike an outage, the current generation keeps running and serving: a quiet watch may be
      // healthy (a mock without bookmarks, a server whose version stood still), and then the
      // relist finds nothing new and publishes nothing. A hung one is stopped when the new
      // generation replaces it.
      startGeneration(RelistReason.SILENT);
    }
  }

  /** What the generations report, on fabric8's threads: count, hop, nothing heavy, never throw. */
  private final class Reports implements GenerationListener<T> {

    @Override
    public void synced(Generation<T> generation) {
      context.runOnContext(ignored -> onSynced(generation));
    }

    @Override
    public void failed(Generation<T> generation, Throwable error) {
      context.runOnContext(ignored -> onFailed(generation, error));
    }

    @Override
    public void event(Generation<T> generation, WatchEvent<T> event) {
      try {
        observer.event(event.type());
        if (!generation.hasSynced()) {
          // Not passed on (see below) and, in a 40,000-object list, each would hold a whole decoded
          // object in the context's queue until then.
          return;
        }
        context.runOnContext(
            ignored -> {
              if (generation == current) {
                silence.heard();
                sink.event(event);
              } // a generation still syncing is handed over whole when it replaces the current
            });
      } catch (RuntimeException e) {
        LOG.error("dropped a {} {} event", spec.kind(), event.type().label(), e);
      }
    }

    @Override
    public void relistingInPlace(Generation<T> generation) {
      // fabric8 relists in place after 410 Gone; count it, its events reach the sink as usual.
      observer.relist(RelistReason.GONE);
    }
  }
}
