package dev.routesync.table;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The read side of {@link Freshness}, for what only reports it (serve/, the metrics): how fresh the
 * served table is, and why. Any thread; nothing here blocks.
 */
public interface FreshnessView {

  /** Whether the served table may be out of date (see {@link Freshness}). */
  boolean stale();

  /** When the API server was last heard from; empty before this process first heard from it. */
  Optional<Instant> syncedAt();

  /** The trust level behind {@link #stale()}. */
  TableTrust.Level level();

  /** How long the table's longest-down watch has been down; zero while every one is up. */
  Duration disconnectedFor();

  /**
   * Whether the table's watches are established: the API server has been heard from and no watch is
   * down. Before the first word from it nothing is connected, whatever the samples say.
   */
  default boolean connected() {
    return syncedAt().isPresent() && disconnectedFor().isZero();
  }
}
