package dev.routesync.gate;

import dev.routesync.rules.Missing;
import java.util.Objects;

/**
 * An expected pod that is not a ready endpoint of a Service port.
 *
 * @param pod the pod's name
 * @param uid the pod's uid (the slices name pods by uid)
 * @param missing why, by the rules ({@link dev.routesync.rules.EndpointCheck})
 */
public record MissingPod(String pod, String uid, Missing missing) {

  public MissingPod {
    Objects.requireNonNull(pod, "pod");
    Objects.requireNonNull(uid, "uid");
    Objects.requireNonNull(missing, "missing");
  }

  /** Decided by the specs: waiting for the controller cannot make this pod an endpoint. */
  public boolean certain() {
    return missing.reason().certain();
  }
}
