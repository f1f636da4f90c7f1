package dev.routesync.gate;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.util.List;

/**
 * The gate's view of one namespace at one moment: the informers' caches, copied.
 *
 * @param services the Services the gate watches (all of the namespace's for {@code --service}, the
 *     ones matching {@code -l} otherwise)
 * @param pods every pod of the namespace (any of them may be selected)
 * @param slices the namespace's slices that belong to a Service (label {@code
 *     kubernetes.io/service-name})
 */
public record Snapshot(List<Service> services, List<Pod> pods, List<EndpointSlice> slices) {

  public Snapshot {
    services = List.copyOf(services);
    pods = List.copyOf(pods);
    slices = List.copyOf(slices);
  }
}
