package dev.routesync.table;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Whether the published table may be served. At start the table is an empty placeholder: served as
 * it is, it would tell every sidecar that the cluster has no Services and make it drop all its
 * routes. Until the agent holds a table it can vouch for, the serving layer answers "not synced
 * yet" instead of answering from the table.
 *
 * <p>The level only rises. The agent raises it on the table writer's thread right after the table
 * it vouches for is published, so a reader that sees {@link #servable()} and then reads the table
 * gets that table or a newer one (check the trust first, then read the table). Listeners run on the
 * raising thread.
 */
public final class TableTrust {

  /** How far the published table can be trusted, lowest first. */
  public enum Level {
    /** Nothing to vouch for: the empty table of a fresh start. */
    NONE(false),
    /**
     * A table restored from the state file at start: served, and stale until the first list
     * confirms it. Static stability: the last known routes beat an empty node while the API server
     * is away, and a restored table is never older than the agent's last publish before it stopped.
     */
    RESTORED(true),
    /** The first full list from the API server is published. */
    SYNCED(true);

    private final boolean servable;

    Level(boolean servable) {
      this.servable = servable;
    }

    public boolean servable() {
      return servable;
    }
  }

  /**
   * How a "not synced yet" answer begins: part of the API (the gRPC status message and the HTTP
   * error), so clients can tell it from other failures.
   */
  public static final String NOT_SYNCED = "not synced yet";

  private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
  private volatile Level level;

  private TableTrust(Level level) {
    this.level = level;
  }

  /** The agent at start: nothing is served until {@link #raise} says so. */
  public static TableTrust untrusted() {
    return new TableTrust(Level.NONE);
  }

  /** Trusted from the start: for a table whose writer vouches for every version (tests, tools). */
  public static TableTrust synced() {
    return new TableTrust(Level.SYNCED);
  }

  public Level level() {
    return level;
  }

  public boolean servable() {
    return level.servable();
  }

  /** Why the table is not served, for an error message; empty when it is served. */
  public String whyNotServable() {
    return servable()
        ? ""
        : NOT_SYNCED + ": the agent has not completed a list from the Kubernetes API server";
  }

  /** Raises the level to {@code to}; a lower or equal level changes nothing. */
  public void raise(Level to) {
    Objects.requireNonNull(to);
    synchronized (this) {
      if (to.compareTo(level) <= 0) {
        return;
      }
      level = to;
    }
    for (Runnable listener : listeners) {
      listener.run();
    }
  }

  /** Registers a listener called, on the raising thread, after each rise of the level. */
  public void onRaise(Runnable listener) {
    listeners.add(Objects.requireNonNull(listener));
  }
}
