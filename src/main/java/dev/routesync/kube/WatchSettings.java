package dev.routesync.kube;

import dev.routesync.kube.watch.RecoverySettings;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * What to watch and how to recover.
 *
 * @param namespaces namespaces to watch; empty means all
 * @param labelSelector Kubernetes label selector, applied by the API server
 * @param relistAfter relist after a disconnection longer than this, because a server may resume a
 *     watch without replaying the deletions made while we were away
 * @param resync anti-entropy relist period (jittered +-10%); zero turns it off
 * @param backoffMin first retry delay after a failed list or watch
 * @param backoffMax retry delay cap
 * @param connectivityCheck how often the watch's health is sampled
 */
public record WatchSettings(
    List<String> namespaces,
    String labelSelector,
    Duration relistAfter,
    Duration resync,
    Duration backoffMin,
    Duration backoffMax,
    Duration connectivityCheck) {

  public static final Duration DEFAULT_RELIST_AFTER = Duration.ofSeconds(10);
  public static final Duration DEFAULT_RESYNC = Duration.ofMinutes(10);
  public static final Duration DEFAULT_BACKOFF_MIN = Duration.ofSeconds(1);
  public static final Duration DEFAULT_BACKOFF_MAX = Duration.ofSeconds(30);
  public static final Duration DEFAULT_CONNECTIVITY_CHECK = Duration.ofMillis(500);

  public WatchSettings {
    namespaces = List.copyOf(namespaces);
    Objects.requireNonNull(labelSelector, "labelSelector");
    Objects.requireNonNull(relistAfter, "relistAfter");
    Objects.requireNonNull(resync, "resync");
    Objects.requireNonNull(backoffMin, "backoffMin");
    Objects.requireNonNull(backoffMax, "backoffMax");
    Objects.requireNonNull(connectivityCheck, "connectivityCheck");
    if (backoffMin.isZero() || backoffMin.isNegative() || backoffMax.compareTo(backoffMin) < 0) {
      throw new IllegalArgumentException("backoff must satisfy 0 < min <= max");
    }
    if (connectivityCheck.isZero() || connectivityCheck.isNegative()) {
      throw new IllegalArgumentException("connectivity check interval must be positive");
    }
  }

  /** Production defaults for the given scope. */
  public static WatchSettings of(List<String> namespaces, String labelSelector) {
    return new WatchSettings(
        namespaces,
        labelSelector,
        DEFAULT_RELIST_AFTER,
        DEFAULT_RESYNC,
        DEFAULT_BACKOFF_MIN,
        DEFAULT_BACKOFF_MAX,
        DEFAULT_CONNECTIVITY_CHECK);
  }

  /** The timings every watch of the agent recovers by, whatever it watches. */
  public RecoverySettings recovery() {
    return new RecoverySettings(relistAfter, resync, backoffMin, backoffMax, connectivityCheck);
  }
}
