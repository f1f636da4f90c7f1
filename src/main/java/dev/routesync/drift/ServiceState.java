package dev.routesync.drift;

import io.fabric8.kubernetes.api.model.Service;

/**
 * A watched Service as last seen, and when it last changed (its grace clock).
 *
 * <p>Mutable on purpose: updated in place by every event of the Service, on the sync context only;
 * nothing outside the detector sees it.
 */
final class ServiceState {
  Service service;

  /** Monotonic nanos of the Service's last change (a new resourceVersion) or first sight. */
  long changedAt;

  ServiceState(Service service, long changedAt) {
    this.service = service;
    this.changedAt = changedAt;
  }
}
