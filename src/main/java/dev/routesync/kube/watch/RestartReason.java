package dev.routesync.kube.watch;

import java.util.Locale;

/**
 * Why the agent gave up on a watch that still looked connected and started a new generation; the
 * {@code reason} label on {@code routesync.watch.restarts}. (A watch that is down is relisted for
 * {@link RelistReason#OUTAGE}, and fails for {@link RelistReason#FAILURE}: those are not restarts.)
 */
public enum RestartReason {
  /** Nothing arrived, no event and no bookmark, for {@code --watch-silence}. */
  SILENT;

  /** The metric label value, e.g. {@code silent}. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }
}
