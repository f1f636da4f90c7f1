package dev.routesync.kube.watch;

import java.util.Locale;

/**
 * Why a watch listed its resources afresh; the {@code reason} label on {@code routesync.relists}.
 */
public enum RelistReason {
  /** The first list, at start. */
  INITIAL,
  /** The previous list or watch failed; retried after backoff. */
  FAILURE,
  /** The periodic anti-entropy relist ({@code --resync}). */
  RESYNC,
  /** The watch was down longer than {@code --relist-after}. */
  OUTAGE,
  /** fabric8 relisted in place after 410 Gone. */
  GONE,
  /** The watch looked connected but nothing arrived for {@code --watch-silence}. */
  SILENT,
  /** The watch was parked (the heap budget was spent) and is listing again. */
  RESUMED;

  /** The metric label value, e.g. {@code outage}. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }
}
