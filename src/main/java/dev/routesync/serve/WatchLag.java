package dev.routesync.serve;

import java.util.Locale;

/** How a Watch message caught a slow subscriber up; the {@code how} label on its counter. */
public enum WatchLag {
  /** One message covered several table versions. */
  COALESCED,
  /** The subscriber fell out of the delta log and got a full snapshot. */
  RESET;

  /** The metric label value, e.g. {@code reset}. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }
}
