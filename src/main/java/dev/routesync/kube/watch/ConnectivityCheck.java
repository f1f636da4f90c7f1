package dev.routesync.kube.watch;

import dev.routesync.sync.Scheduler;
import dev.routesync.units.Durations;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Samples the served watch every {@code connectivityCheck} into {@link Connectivity}, and declares
 * it stale once an outage has lasted {@code relistAfter}: down that long, a resumed watch cannot be
 * trusted, because the server may have compacted the deletions we missed.
 *
 * <p>Threading: started, stopped and run on the scheduler's context, like its owner.
 */
final class ConnectivityCheck {

  private static final Logger LOG = LoggerFactory.getLogger(ConnectivityCheck.class);

  /** What the check reads from, and reports to, the watch it samples. */
  interface Watched {

    /** The served generation has listed and all its informers are watching. */
    boolean watching();

    /**
     * A stale-watch relist would help now: a generation is served, it has not failed (failures have
     * their own retry), and no relist is under way or scheduled.
     */
    boolean relistWouldHelp();

    /** The watch is stale: stop resuming it and list afresh beside its cache. */
    void stale(long outageNanos);
  }

  private final Scheduler scheduler;
  private final long intervalNanos;
  private final long relistAfterNanos;
  private final Connectivity connectivity;
  private final Watched watched;
  private Scheduler.Cancellable next;
  private boolean stopped;

  ConnectivityCheck(
      Scheduler scheduler,
      Duration interval,
      Duration relistAfter,
      Connectivity connectivity,
      Watched watched) {
    if (interval.isZero() || interval.isNegative()) {
      throw new IllegalArgumentException("connectivity check interval must be positive");
    }
    this.scheduler = scheduler;
    this.intervalNanos = interval.toNanos();
    this.relistAfterNanos = relistAfter.toNanos();
    this.connectivity = connectivity;
    this.watched = watched;
  }

  /** The first sample is one interval from now. */
  void start() {
    next =
        scheduler.schedule(
            intervalNanos,
            () -> {
              check();
              if (!stopped) {
                start();
              }
            });
  }

  void stop() {
    stopped = true;
    if (next != null) {
      next.cancel();
      next = null;
    }
  }

  private void check() {
    if (watched.watching()) {
      connectivity.up(); // a blip shorter than relist-after: fabric8 resumed from resourceVersion
      return;
    }
    connectivity.down();
    long outage = connectivity.outageNanos();
    if (outage >= relistAfterNanos && watched.relistWouldHelp()) {
      LOG.info(
          "watch down for {}; relisting when the API server answers",
          Durations.formatNanos(outage));
      watched.stale(outage);
    }
  }
}
