package dev.routesync.sync;

import dev.routesync.table.ServiceKey;
import dev.routesync.table.ServiceState;
import java.time.Instant;
import java.util.Optional;

/**
 * Computes a service's state (endpoints and declared ports) from the watch caches. Implemented by
 * {@code kube/}, so the reconciler knows nothing of Kubernetes objects.
 */
@FunctionalInterface
public interface EndpointLookup {

  /**
   * The service's routable endpoints, sorted by IP (an empty list when the service exists but
   * nothing is routable), with the ports the Service declares; {@link Optional#empty()} when no
   * EndpointSlice (or Endpoints) of the service is known (all its objects are gone). The Service's
   * declared ports alone never make an entry: without endpoints objects there is nothing to route.
   */
  Optional<ServiceState> stateOf(ServiceKey key);

  /**
   * When the cluster change behind the service's current objects happened: the newest {@code
   * endpoints.kubernetes.io/last-change-trigger-time} among them, or empty when none says.
   */
  default Optional<Instant> triggerTimeOf(ServiceKey key) {
    return Optional.empty();
  }
}
