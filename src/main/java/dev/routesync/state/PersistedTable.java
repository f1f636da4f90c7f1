package dev.routesync.state;

import dev.routesync.table.RoutingTable;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * What a state file holds: the table as it was published (its version and every entry's), when it
 * was written, and when the writing agent last heard from the API server.
 *
 * @param table the table, with an empty delta log
 * @param writtenAt when the file was written (the writer's clock)
 * @param syncedAt the writer's {@code synced_at}; empty if it had never heard the API server
 */
public record PersistedTable(RoutingTable table, Instant writtenAt, Optional<Instant> syncedAt) {

  public PersistedTable {
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(writtenAt, "writtenAt");
    Objects.requireNonNull(syncedAt, "syncedAt");
  }
}
