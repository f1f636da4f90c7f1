package dev.routesync.drift;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;

/**
 * Where a new drift becomes a Kubernetes Event (reason {@code PodNotInServiceEndpoints}, regarding
 * the pod, related the Service). Called once per new drift, on the sync context: implementations
 * must not block (a recorder queues, dedups and rate-limits on its own). The agent's is {@link
 * RecordedDriftEvents}; a test or benchmark passes a lambda.
 */
@FunctionalInterface
public interface DriftEvents {

  /** The Event reason every drift is recorded under. */
  String REASON = "PodNotInServiceEndpoints";

  void drifted(DriftEntry entry, Pod pod, Service service);
}
