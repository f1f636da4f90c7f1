package dev.routesync.serve;

import dev.routesync.table.RoutingTable;
import dev.routesync.table.ServiceEndpoints;
import dev.routesync.table.ServiceKey;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * What one Watch stream follows: a list of Services, else one namespace, else everything.
 *
 * @param namespace empty for all namespaces; ignored when {@code services} is not empty
 * @param services the Services to follow; empty for a namespace or everything
 */
record WatchFilter(String namespace, Set<ServiceKey> services) {

  WatchFilter {
    services = Set.copyOf(services);
  }

  boolean matches(ServiceKey key) {
    if (!services.isEmpty()) {
      return services.contains(key);
    }
    return namespace.isEmpty() || namespace.equals(key.namespace());
  }

  /** The matching services of {@code table}, in key order. */
  Collection<ServiceEndpoints> snapshot(RoutingTable table) {
    if (!services.isEmpty()) {
      List<ServiceEndpoints> selected = new ArrayList<>();
      services.stream().sorted().forEach(key -> table.get(key).ifPresent(selected::add));
      return selected;
    }
    return namespace.isEmpty() ? table.services() : table.servicesIn(namespace);
  }
}
