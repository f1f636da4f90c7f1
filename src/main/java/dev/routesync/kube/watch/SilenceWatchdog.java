package dev.routesync.kube.watch;

import dev.routesync.sync.Scheduler;
import dev.routesync.units.Durations;
import java.time.Duration;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Declares a watch hung when it has been connected for {@code watchSilence} with nothing arriving:
 * no event and no bookmark. A black-holed connection, a stuck proxy or an API server that stopped
 * sending keeps the socket open, so the informer still reports watching and {@link
 * ConnectivityCheck} sees nothing wrong (istio#59023 is this bug in Istio).
 *
 * <p>How a bookmark is seen: fabric8's informer handles BOOKMARK itself and calls no event handler,
 * but it sets its {@code lastSyncResourceVersion()} from every event and bookmark. A real API
 * server sends a bookmark only with a resourceVersion newer than the one the watch started from,
 * about once a minute while its version moves (writes anywhere to the resource, etcd progress
 * notifications). So the watchdog samples that version every {@code interval}: a change is a sign
 * of life, and one with no event since the last sample is counted as a bookmark.
 *
 * <p>The clock runs only while the watch is {@link Watched#listening() listening}: a generation
 * that is still listing, a retry, a failure and a disconnection each have their own recovery (a
 * disconnection is {@link ConnectivityCheck}'s, so the two never relist for the same outage), and
 * each restarts the clock from zero.
 *
 * <p>Threading: started, stopped and run on the scheduler's context, like its owner; {@link #heard}
 * too.
 */
final class SilenceWatchdog {

  private static final Logger LOG = LoggerFactory.getLogger(SilenceWatchdog.class);

  /** What the watchdog reads from, and reports to, the watch it guards. */
  interface Watched {

    /**
     * A generation is served and watching, it has not failed, and no list or retry is under way:
     * the only state in which silence can mean a hung connection.
     */
    boolean listening();

    /**
     * A value that changes whenever the served generation hears from the server (its informers'
     * resourceVersions: each event and each bookmark with a newer version moves them). Compared
     * with {@link Object#equals}; read only while {@link #listening()}.
     */
    Object progress();

    /** The watch has been silent for {@code silentNanos}: list afresh beside its cache. */
    void silent(long silentNanos);
  }

  private final String kind;
  private final Scheduler scheduler;
  private final long intervalNanos;
  private final long silenceNanos;
  private final WatchObserver observer;
  private final Watched watched;
  private Scheduler.Cancellable next;
  private boolean stopped;
  private long quietSince;
  private Object lastProgress;
  private boolean eventSinceCheck;

  SilenceWatchdog(
      String kind,
      Scheduler scheduler,
      Duration interval,
      Duration silence,
      WatchObserver observer,
      Watched watched) {
    if (interval.isZero() || interval.isNegative()) {
      throw new IllegalArgumentException("silence check interval must be positive");
    }
    if (silence.isZero() || silence.isNegative()) {
      throw new IllegalArgumentException("watch silence must be positive");
    }
    this.kind = Objects.requireNonNull(kind, "kind");
    this.scheduler = scheduler;
    this.intervalNanos = interval.toNanos();
    this.silenceNanos = silence.toNanos();
    this.observer = observer;
    this.watched = watched;
  }

  /** The first sample is one interval from now; silence is counted from now. */
  void start() {
    quietSince = scheduler.nanoTime();
    scheduleNext();
  }

  void stop() {
    stopped = true;
    if (next != null) {
      next.cancel();
      next = null;
    }
  }

  /** The served generation delivered an event: the watch is alive. */
  void heard() {
    quietSince = scheduler.nanoTime();
    eventSinceCheck = true;
  }

  private void scheduleNext() {
    next =
        scheduler.schedule(
            intervalNanos,
            () -> {
              check();
              if (!stopped) {
                scheduleNext();
              }
            });
  }

  private void check() {
    long now = scheduler.nanoTime();
    boolean event = eventSinceCheck;
    eventSinceCheck = false;
    if (!watched.listening()) {
      // Listing, retrying, failed or disconnected: not silence; start over once it listens.
      quietSince = now;
      lastProgress = null;
      return;
    }
    Object progress = watched.progress();
    if (lastProgress == null) {
      lastProgress = progress; // the baseline of a generation that just began listening
      return;
    }
    if (!progress.equals(lastProgress)) {
      lastProgress = progress;
      if (!event) {
        // The version moved and no event did it: a bookmark, seen at most one interval late.
        quietSince = now;
        observer.bookmark();
      } // an event moved it, and heard() already took the event's own time
      return;
    }
    long silent = now - quietSince;
    if (silent >= silenceNanos) {
      LOG.atWarn()
          .addKeyValue("kind", kind)
          .addKeyValue("reason", RelistReason.SILENT.label())
          .log(
              "{} watch silent for {} (no event, no bookmark; --watch-silence {}): relisting",
              kind,
              Durations.formatNanos(silent),
              Durations.formatNanos(silenceNanos));
      observer.restarted(RestartReason.SILENT);
      quietSince = now; // a relist that cannot start now is not counted again at the next sample
      watched.silent(silent);
    }
  }
}
