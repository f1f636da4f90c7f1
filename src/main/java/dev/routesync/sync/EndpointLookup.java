package dev.routesync.sync;

import dev.routesync.table.Endpoint;
import dev.routesync.table.ServiceKey;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Computes a service's endpoints from the watch caches. Implemented by {@code kube/}, so the
 * reconciler knows nothing of Kubernetes objects.
 */
@FunctionalInterface
public interface EndpointLookup {

  /**
   * The service's routable endpoints, sorted by IP; an empty list when the service exists but
   * nothing is routable; {@link Optional#empty()} when nothing is known of the service (all its
   * objects are gone).
   */
  Optional<List<Endpoint>> endpointsOf(ServiceKey key);

  /**
   * When the cluster change behind the service's current objects happened: the newest {@code
   * endpoints.kubernetes.io/last-change-trigger-time} among them, or empty when none says.
   */
  default Optional<Instant> triggerTimeOf(ServiceKey key) {
    return Optional.empty();
  }
}
