package dev.routesync.state;

import dev.routesync.table.RoutingTable;
import dev.routesync.units.Durations;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which version a restored table is served at.
 *
 * <p>After a graceful stop (the file is {@linkplain StateFile.Found#complete complete}) the file
 * holds the last version any sidecar saw, so the table continues from it: the restored table keeps
 * its version {@code v}, the first list publishes {@code v + 1}, and a sidecar that resumes its
 * Watch from {@code v} gets only the difference, no snapshot.
 *
 * <p>After anything else (a SIGKILL, an OOM kill, a failed last write) the old agent may have
 * published versions after {@code v} that never reached the file, and a sidecar may hold one of
 * them. Continuing at {@code v + 1} would give those numbers new contents, and that sidecar would
 * resume into a delta that does not describe its state. So the restored table jumps to the version
 * a cold start would have had (the start time in microseconds, above every version the old agent
 * could have reached) and every sidecar gets a snapshot, as after any restart before. Either way
 * versions only grow.
 */
public final class WarmStart {

  private static final Logger LOG = LoggerFactory.getLogger(WarmStart.class);

  private WarmStart() {}

  /**
   * A table to serve at start, and when its writer last heard from the API server.
   *
   * @param table the table to serve, at the version {@link #tableToServe} chose
   * @param syncedAt the writer's {@code synced_at}
   */
  public record Restored(RoutingTable table, Optional<Instant> syncedAt) {}

  /**
   * Loads {@code file} for a warm start. A missing file is a cold start, said in one line; a file
   * that does not load is one WARN line and a count by reason, and a cold start too: never a crash,
   * never part of a table.
   *
   * @param now the agent's start (the file must not be from later than this, give or take skew)
   * @param coldStartVersion the version a fresh agent starts at
   */
  public static Optional<Restored> load(
      StateFile file,
      Instant now,
      long coldStartVersion,
      int deltaLogCapacity,
      StateObserver observer) {
    StateFile.Loaded loaded = file.load(now, deltaLogCapacity);
    if (loaded instanceof StateFile.Missing) {
      LOG.info(
          "no state file at {}: a cold start, nothing served until the first list", file.path());
      return Optional.empty();
    }
    if (loaded instanceof StateFile.Failed failed) {
      observer.loadFailed(failed.reason());
      LOG.warn(
          "state file {} not loaded ({}: {}); a cold start, nothing served until the first list",
          file.path(),
          failed.reason().label(),
          failed.message());
      return Optional.empty();
    }
    StateFile.Found found = (StateFile.Found) loaded;
    PersistedTable persisted = found.persisted();
    RoutingTable table = tableToServe(found, coldStartVersion, deltaLogCapacity);
    observer.restored(table.serviceCount());
    LOG.info(
        "restored {} services ({} endpoints) from {}, written {} ago ({}), synced_at {}; serving"
            + " it, stale, at version {} until the first list",
        table.serviceCount(),
        table.endpointCount(),
        file.path(),
        Durations.format(
            Duration.ofSeconds(
                Math.max(0, Duration.between(persisted.writtenAt(), now).toSeconds()))),
        found.complete() ? "at a graceful stop" : "while running",
        persisted.syncedAt().map(Instant::toString).orElse("never"),
        table.version());
    return Optional.of(new Restored(table, persisted.syncedAt()));
  }

  /**
   * @param coldStartVersion the version a fresh agent starts at (its start time in microseconds)
   */
  public static RoutingTable tableToServe(
      StateFile.Found found, long coldStartVersion, int deltaLogCapacity) {
    RoutingTable persisted = found.persisted().table();
    if (found.complete()) {
      return persisted;
    }
    long version = Math.max(persisted.version() + 1, coldStartVersion);
    return RoutingTable.restored(
        version, persisted.services(), persisted.builtAt(), deltaLogCapacity);
  }
}
