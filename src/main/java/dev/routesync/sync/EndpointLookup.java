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
   * The state of {@link #stateOf} with the trigger time of the objects it was computed from, in one
   * lookup: what the reconciler calls. By default no trigger time is known.
   */
  default Optional<Found> find(ServiceKey key) {
    return stateOf(key).map(state -> new Found(state, null));
  }

  /**
   * A service's state and when the cluster change behind it happened.
   *
   * @param state its endpoints and declared ports
   * @param triggerTime the newest {@code endpoints.kubernetes.io/last-change-trigger-time} among
   *     its objects (parsed once per object version, when it arrived), or null when none says
   * @param key the key instance the lookup holds for the service, or null: the table keeps it, so
   *     the store and the table share one key (and its name string) per service instead of each
   *     holding an equal copy (2 x 40,000 keys at 40,000 Services otherwise)
   */
  record Found(ServiceState state, Instant triggerTime, ServiceKey key) {

    public Found(ServiceState state, Instant triggerTime) {
      this(state, triggerTime, null);
    }
  }
}
