package dev.routesync.kube;

import dev.routesync.kube.translate.Skip;
import dev.routesync.observe.Metrics;
import dev.routesync.sync.Coalescer;
import dev.routesync.sync.Scheduler;
import dev.routesync.table.ServiceKey;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a watch on the configured kind alive forever and decides when to relist.
 *
 * <p>Blips are fabric8's job: its watch manager reconnects from the last resourceVersion, and a 410
 * Gone makes it relist in place. Everything else is ours:
 *
 * <ul>
 *   <li>A failed list or watch never stops the agent: the failed informer keeps serving its last
 *       known cache while a new generation is started after a jittered exponential backoff.
 *   <li>Once a disconnection lasts longer than {@code relistAfter}, the current watch stops
 *       resuming (its cache is still served) and a new generation lists beside it as soon as the
 *       server answers, so deletions missed while away (which a server resuming a watch may never
 *       replay) cannot survive as ghosts. Every {@code resync}, the same happens while connected.
 *   <li>When a new generation has synced it replaces the current one, and every Service known to
 *       either is recomputed as one batch: one version, never an empty flash.
 * </ul>
 *
 * <p>Threading: all state lives on the sync context. Informer callbacks (fabric8's threads) only
 * hop onto that context and mark a key dirty.
 */
public final class WatchSupervisor<T extends HasMetadata> {

  private static final Logger LOG = LoggerFactory.getLogger(WatchSupervisor.class);

  private final KubernetesClient client;
  private final WatchedKind<T> kind;
  private final WatchSettings settings;
  private final ServiceCache<T> cache;
  private final Coalescer coalescer;
  private final Context context;
  private final Scheduler scheduler;
  private final Metrics metrics;
  private final SkipReporter skips;
  private final Backoff backoff;
  private final ResyncTimer resyncTimer;
  private final Connectivity connectivity;
  private final Promise<Void> initialSync = Promise.promise();

  private Generation<T> pending;
  private int generations;
  private Scheduler.Cancellable retryTimer;
  private Scheduler.Cancellable checkTimer;
  private boolean stopped;

  public WatchSupervisor(
      KubernetesClient client,
      WatchedKind<T> kind,
      WatchSettings settings,
      ServiceCache<T> cache,
      Coalescer coalescer,
      Context context,
      Scheduler scheduler,
      Metrics metrics,
      SkipReporter skips,
      Random random) {
    this.client = client;
    this.kind = kind;
    this.settings = settings;
    this.cache = cache;
    this.coalescer = coalescer;
    this.context = context;
    this.scheduler = scheduler;
    this.metrics = metrics;
    this.skips = skips;
    this.backoff = new Backoff(settings.backoffMin(), settings.backoffMax(), random);
    this.resyncTimer =
        new ResyncTimer(scheduler, settings.resync(), random, () -> startGeneration("resync"));
    this.connectivity = new Connectivity(kind.kind(), scheduler, metrics);
  }

  /** How long the watch has been down, or 0 while it is up. Any thread. */
  public long disconnectedNanos() {
    return connectivity.disconnectedNanos();
  }

  /** Starts watching. Call on the sync context. */
  public void start() {
    startGeneration("initial");
    scheduleCheck();
    resyncTimer.start();
  }

  /** Completes when the first full list has been published. */
  public Future<Void> initialSync() {
    return initialSync.future();
  }

  /** Stops every informer and timer. Call on the sync context. */
  public void stop() {
    stopped = true;
    cancel(retryTimer);
    resyncTimer.stop();
    cancel(checkTimer);
    if (pending != null) {
      pending.stop();
      pending = null;
    }
    Generation<T> current = cache.current();
    if (current != null) {
      current.stop();
    }
    connectivity.stopped();
  }

  /** Starts a relist now unless one is already under way. Call on the sync context. */
  public void relist(String reason) {
    startGeneration(reason);
  }

  private void startGeneration(String reason) {
    if (stopped || pending != null) {
      return;
    }
    cancel(retryTimer);
    retryTimer = null;
    int id = ++generations;
    LOG.info("listing {} ({}, generation {})", kind.kind(), reason, id);
    metrics.relist(reason);
    Generation<T>[] self = newArray();
    Generation<T> generation =
        new Generation<>(
            id,
            client,
            kind,
            settings,
            new Handler(self),
            (started, error) -> {
              context.runOnContext(ignored -> onFailed(self[0], error));
              // Stop this informer: the supervisor retries with jitter and a fresh cache beside
              // the served one, rather than fabric8's un-jittered in-place retry.
              return false;
            });
    self[0] = generation;
    pending = generation;
    generation
        .start()
        .whenComplete(
            (ok, error) -> {
              if (error == null) {
                context.runOnContext(ignored -> onSynced(generation));
              }
            });
  }

  @SuppressWarnings("unchecked")
  private Generation<T>[] newArray() {
    return (Generation<T>[]) new Generation<?>[1];
  }

  private void onSynced(Generation<T> generation) {
    if (stopped || generation != pending) {
      return;
    }
    pending = null;
    Generation<T> previous = cache.current();
    Set<ServiceKey> affected = new TreeSet<>(generation.serviceKeys());
    if (previous != null) {
      affected.addAll(previous.serviceKeys());
    }
    cache.swap(generation);
    if (previous != null) {
      previous.stop();
    }
    backoff.reset();
    connectivity.up();
    LOG.info("{} synced: {} services", generation, affected.size());
    coalescer.flushAsOne(affected);
    initialSync.tryComplete();
  }

  private void onFailed(Generation<T> generation, Throwable error) {
    if (stopped || generation == null) {
      return;
    }
    generation.markFailed();
    if (generation == pending) {
      pending = null;
      generation.stop();
    } else if (generation != cache.current()) {
      return;
    }
    connectivity.down();
    long delay = backoff.nextDelayNanos();
    LOG.warn(
        "{} failed ({}); keeping the last known state, retrying in {} ms",
        generation,
        rootMessage(error),
        delay / 1_000_000);
    if (retryTimer == null) {
      retryTimer =
          scheduler.schedule(
              delay,
              () -> {
                retryTimer = null;
                startGeneration("failure");
              });
    }
  }

  private void scheduleCheck() {
    checkTimer =
        scheduler.schedule(
            settings.connectivityCheck().toNanos(),
            () -> {
              checkConnectivity();
              if (!stopped) {
                scheduleCheck();
              }
            });
  }

  private void checkConnectivity() {
    Generation<T> current = cache.current();
    if (current != null && current.isWatching()) {
      connectivity.up(); // a blip shorter than relist-after: fabric8 resumed from resourceVersion
      return;
    }
    connectivity.down();
    long outage = connectivity.outageNanos();
    if (current != null
        && !current.isFailed()
        && pending == null
        && retryTimer == null
        && outage >= settings.relistAfter().toNanos()) {
      // Down too long to trust a resumed watch: the server may have compacted the deletions we
      // missed. Stop resuming (its cache keeps being served) and list afresh beside it; the new
      // generation retries with backoff until the server answers. One list and one watch per
      // agent when the server comes back, instead of a replayed watch plus a relist.
      LOG.info("watch down for {} ms; relisting when the API server answers", outage / 1_000_000);
      current.markFailed();
      current.stop();
      startGeneration("outage");
    }
  }

  private static void cancel(Scheduler.Cancellable timer) {
    if (timer != null) {
      timer.cancel();
    }
  }

  private static String rootMessage(Throwable error) {
    Throwable root = error;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root.getClass().getSimpleName() + ": " + root.getMessage();
  }

  /**
   * Informer callbacks: count, hop to the sync context, mark dirty. Nothing heavy, never throws.
   */
  private final class Handler implements ResourceEventHandler<T> {

    private final Generation<T>[] generation;

    Handler(Generation<T>[] generation) {
      this.generation = generation;
    }

    @Override
    public void onAdd(T object) {
      changed("added", null, object);
    }

    @Override
    public void onUpdate(T previous, T object) {
      changed("updated", previous, object);
    }

    @Override
    public void onDelete(T object, boolean deletedFinalStateUnknown) {
      changed("deleted", null, object);
    }

    @Override
    public void onBeforeList(String lastSyncResourceVersion) {
      if (lastSyncResourceVersion != null) {
        // fabric8 relists in place after 410 Gone; count it, its events mark keys as usual.
        metrics.relist("gone");
      }
    }

    private void changed(String type, T previous, T object) {
      try {
        long arrived = scheduler.nanoTime();
        metrics.watchEvent(kind.kind(), type);
        Optional<ServiceKey> key = kind.serviceKeyOf(object);
        Optional<ServiceKey> previousKey =
            previous == null ? Optional.empty() : kind.serviceKeyOf(previous);
        String name = describe(object);
        // Counted per event: each add or update of an object is a new version of it.
        String version = Skip.resourceVersionOf(object);
        context.runOnContext(
            ignored -> {
              if (generation[0] != cache.current()) {
                return; // a generation still syncing is published as a whole when it swaps in
              }
              if (key.isPresent()) {
                coalescer.markDirty(key.get(), arrived);
              } else if (!"deleted".equals(type)) {
                skips.report(
                    new Skip(kind.unkeyedReason(), name, version, "no Service to attach it to"));
              }
              previousKey.filter(k -> !k.equals(key.orElse(null))).ifPresent(coalescer::markDirty);
            });
      } catch (RuntimeException e) {
        LOG.error("dropped a {} {} event", kind.kind(), type, e);
      }
    }

    private String describe(T object) {
      var meta = object == null ? null : object.getMetadata();
      return kind.kind() + " " + (meta == null ? "?" : meta.getNamespace() + "/" + meta.getName());
    }
  }
}
