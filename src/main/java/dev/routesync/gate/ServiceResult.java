package dev.routesync.gate;

import java.util.List;
import java.util.Optional;

/**
 * One Service's state.
 *
 * @param namespace its namespace
 * @param name its name
 * @param skipped why the gate cannot check it (it is not the EndpointSlice controller's: no
 *     selector, or ExternalName); such a Service is noted, never failed
 * @param ports its ports' states, in the Service's order; empty when skipped
 */
public record ServiceResult(
    String namespace, String name, Optional<String> skipped, List<PortResult> ports) {

  public ServiceResult {
    ports = List.copyOf(ports);
  }

  public boolean evaluated() {
    return skipped.isEmpty();
  }

  public boolean passes(boolean allowEmpty) {
    return ports.stream().allMatch(p -> p.passes(allowEmpty));
  }
}
