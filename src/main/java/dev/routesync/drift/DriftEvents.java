package dev.routesync.drift;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a new drift becomes a Kubernetes Event (reason {@code PodNotInServiceEndpoints}, regarding
 * the pod, related the Service). Called once per new drift, on the sync context: implementations
 * must not block (a recorder queues, dedups and rate-limits on its own).
 */
@FunctionalInterface
public interface DriftEvents {

  /** The Event reason every drift is recorded under. */
  String REASON = "PodNotInServiceEndpoints";

  void drifted(DriftEntry entry, Pod pod, Service service);

  /**
   * Records no Event, only a debug line: the detector's own WARN line already names the drift.
   * Until the agent has an Event recorder.
   */
  DriftEvents LOG_ONLY =
      new DriftEvents() {
        private final Logger log = LoggerFactory.getLogger(DriftEvents.class);

        @Override
        public void drifted(DriftEntry entry, Pod pod, Service service) {
          log.debug(
              "no Event recorder: would record {} for pod {}/{} (Service {}, port {}, {})",
              REASON,
              entry.namespace(),
              entry.pod(),
              entry.service(),
              entry.port(),
              entry.reasonLabel());
        }
      };
}
