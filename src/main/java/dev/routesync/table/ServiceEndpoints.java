package dev.routesync.table;

import java.util.List;
import java.util.Objects;

/**
 * The published state of one Service.
 *
 * @param key the Service
 * @param version the table version at which this entry last changed
 * @param endpoints sorted by IP, possibly empty (the Service exists but nothing is ready)
 */
public record ServiceEndpoints(ServiceKey key, long version, List<Endpoint> endpoints) {

  public ServiceEndpoints {
    Objects.requireNonNull(key, "key");
    endpoints = List.copyOf(endpoints);
  }
}
