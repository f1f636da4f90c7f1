package dev.routesync.table;

import java.util.Set;

/**
 * What one table version changed: the services upserted (new or different endpoints) and the
 * services removed.
 */
public record TableDelta(long version, Set<ServiceKey> upserted, Set<ServiceKey> removed) {

  public TableDelta {
    upserted = Set.copyOf(upserted);
    removed = Set.copyOf(removed);
  }
}
