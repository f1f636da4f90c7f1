package dev.routesync.serve;

import java.util.Locale;

/** The agent's listeners, as metric labels: a fixed set, never a value a client chose. */
public enum Listener {
  SOCKET,
  TCP,
  ADMIN,
  DEBUG;

  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }
}
