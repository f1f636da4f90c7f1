package dev.routesync.kube;

import dev.routesync.kube.watch.RecoverySettings;
import dev.routesync.table.KubernetesNames;
import dev.routesync.units.Durations;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;

/**
 * What to watch and how to recover. The scope is checked here, once, whatever built it; messages
 * name the flag ({@code --namespace}), because that is what an operator can change.
 *
 * @param namespaces namespaces to watch, each once; empty means all
 * @param labelSelector Kubernetes label selector, applied by the API server
 * @param relistAfter relist after a disconnection longer than this, because a server may resume a
 *     watch without replaying the deletions made while we were away
 * @param resync anti-entropy relist period (jittered +-10%); zero turns it off
 * @param backoffMin first retry delay after a failed list or watch
 * @param backoffMax retry delay cap
 * @param connectivityCheck how often the watch's health is sampled
 * @param watchSilence {@code --watch-silence}: a watch silent this long (no event, no bookmark) is
 *     replaced by a new generation
 */
public record WatchSettings(
    List<String> namespaces,
    String labelSelector,
    Duration relistAfter,
    Duration resync,
    Duration backoffMin,
    Duration backoffMax,
    Duration connectivityCheck,
    Duration watchSilence) {

  // Defaults as the flags write them: the flags' defaultValue and the Durations below both read
  // these, so --help cannot disagree with the record.
  public static final String DEFAULT_LABEL_SELECTOR = "mesh-managed=true";
  public static final String DEFAULT_RELIST_AFTER_TEXT = "10s";
  public static final String DEFAULT_RESYNC_TEXT = "10m";

  public static final Duration DEFAULT_RELIST_AFTER = Durations.parse(DEFAULT_RELIST_AFTER_TEXT);
  public static final Duration DEFAULT_RESYNC = Durations.parse(DEFAULT_RESYNC_TEXT);
  public static final Duration DEFAULT_BACKOFF_MIN = Duration.ofSeconds(1);
  public static final Duration DEFAULT_BACKOFF_MAX = Duration.ofSeconds(30);
  public static final Duration DEFAULT_CONNECTIVITY_CHECK = Duration.ofMillis(500);
  public static final String DEFAULT_WATCH_SILENCE_TEXT = "5m";
  public static final Duration DEFAULT_WATCH_SILENCE = Durations.parse(DEFAULT_WATCH_SILENCE_TEXT);

  // The sane ranges of --relist-after and --resync (docs/configuration.md says the
  // same): `--resync 1ms` relisted the whole cluster 87 times in 4 s, and hours beyond them
  // overflowed the timers' arithmetic. Checked by of(...), see there.
  public static final Duration MIN_RELIST_AFTER = Duration.ofSeconds(1);
  public static final Duration MAX_RELIST_AFTER = Duration.ofHours(1);
  public static final Duration MIN_RESYNC = Duration.ofMinutes(1);
  public static final Duration MAX_RESYNC = Duration.ofHours(24);
  // Bookmarks come about every minute: a silence shorter than two of them would restart healthy
  // watches of a quiet cluster.
  public static final Duration MIN_WATCH_SILENCE = Duration.ofMinutes(2);
  public static final Duration MAX_WATCH_SILENCE = Duration.ofHours(1);

  /** With the default watch silence. */
  public WatchSettings(
      List<String> namespaces,
      String labelSelector,
      Duration relistAfter,
      Duration resync,
      Duration backoffMin,
      Duration backoffMax,
      Duration connectivityCheck) {
    this(
        namespaces,
        labelSelector,
        relistAfter,
        resync,
        backoffMin,
        backoffMax,
        connectivityCheck,
        DEFAULT_WATCH_SILENCE);
  }

  public WatchSettings {
    // One watch per namespace: a name given twice would watch it twice.
    namespaces = List.copyOf(new LinkedHashSet<>(namespaces));
    for (String namespace : namespaces) {
      try {
        KubernetesNames.requireNamespace(namespace);
      } catch (IllegalArgumentException e) { // the one rule's message, naming the flag
        throw new IllegalArgumentException("--namespace: " + e.getMessage(), e);
      }
    }
    Objects.requireNonNull(labelSelector, "labelSelector");
    if (labelSelector.isBlank()) {
      throw new IllegalArgumentException(
          "--label-selector must not be empty: routesync only syncs opted-in Services");
    }
    LabelSelectors.validate(labelSelector);
    Objects.requireNonNull(relistAfter, "relistAfter");
    Objects.requireNonNull(resync, "resync");
    Objects.requireNonNull(backoffMin, "backoffMin");
    Objects.requireNonNull(backoffMax, "backoffMax");
    Objects.requireNonNull(connectivityCheck, "connectivityCheck");
    Objects.requireNonNull(watchSilence, "watchSilence");
    if (watchSilence.isZero() || watchSilence.isNegative()) {
      throw new IllegalArgumentException("--watch-silence must be positive");
    }
    if (backoffMin.isZero() || backoffMin.isNegative() || backoffMax.compareTo(backoffMin) < 0) {
      throw new IllegalArgumentException("backoff must satisfy 0 < min <= max");
    }
    if (connectivityCheck.isZero() || connectivityCheck.isNegative()) {
      throw new IllegalArgumentException("connectivity check interval must be positive");
    }
  }

  /** Production defaults for the given scope. */
  public static WatchSettings of(List<String> namespaces, String labelSelector) {
    return of(namespaces, labelSelector, DEFAULT_RELIST_AFTER, DEFAULT_RESYNC);
  }

  /**
   * An operator's choice: the timings within the ranges of {@code --relist-after} and {@code
   * --resync}, production defaults for the rest. The ranges are checked here, not in the canonical
   * constructor, because they guard against unit mistakes, not against what the watch can run:
   * tests run it with sub-second relists and resyncs to converge fast.
   *
   * @throws IllegalArgumentException naming the flag and its range
   */
  public static WatchSettings of(
      List<String> namespaces, String labelSelector, Duration relistAfter, Duration resync) {
    return of(namespaces, labelSelector, relistAfter, resync, DEFAULT_WATCH_SILENCE);
  }

  /** As {@link #of(List, String, Duration, Duration)}, with {@code --watch-silence} too. */
  public static WatchSettings of(
      List<String> namespaces,
      String labelSelector,
      Duration relistAfter,
      Duration resync,
      Duration watchSilence) {
    Durations.requireWithin("--relist-after", relistAfter, MIN_RELIST_AFTER, MAX_RELIST_AFTER);
    Durations.requireOffOrWithin("--resync", resync, MIN_RESYNC, MAX_RESYNC);
    Durations.requireWithin("--watch-silence", watchSilence, MIN_WATCH_SILENCE, MAX_WATCH_SILENCE);
    return new WatchSettings(
        namespaces,
        labelSelector,
        relistAfter,
        resync,
        DEFAULT_BACKOFF_MIN,
        DEFAULT_BACKOFF_MAX,
        DEFAULT_CONNECTIVITY_CHECK,
        watchSilence);
  }

  /** The timings every watch of the agent recovers by, whatever it watches. */
  public RecoverySettings recovery() {
    return new RecoverySettings(
        relistAfter, resync, backoffMin, backoffMax, connectivityCheck, watchSilence);
  }
}
