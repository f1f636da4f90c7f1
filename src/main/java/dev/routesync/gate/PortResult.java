package dev.routesync.gate;

import java.util.List;

/**
 * One Service port's state.
 *
 * @param name the port's name ({@code ""} for an unnamed port, or for a Service without ports)
 * @param description how messages name it: {@code port http (80 -> http/TCP)}
 * @param expected how many pods should be ready endpoints of it (selected, and {@link
 *     dev.routesync.rules.PodStates#isExpected})
 * @param ready how many ready endpoints carry it in the controller's slices (old pods included)
 * @param missing the expected pods that are not among them, in pod-name order
 */
public record PortResult(
    String name, String description, int expected, int ready, List<MissingPod> missing) {

  public PortResult {
    missing = List.copyOf(missing);
  }

  /** Every expected pod is a ready endpoint, and there is one (unless empty is allowed). */
  public boolean passes(boolean allowEmpty) {
    return missing.isEmpty() && (expected > 0 || allowEmpty);
  }
}
