package dev.routesync.rules;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.Service;

/** The pod facts the EndpointSlice controller reads ({@code ShouldPodBeInEndpoints}). */
public final class PodStates {

  private PodStates() {}

  /** Condition {@code Ready=True} ({@code podutil.IsPodReady}). */
  public static boolean isReady(Pod pod) {
    PodStatus status = pod == null ? null : pod.getStatus();
    if (status == null || status.getConditions() == null) {
      return false;
    }
    for (PodCondition condition : status.getConditions()) {
      if (condition != null && "Ready".equals(condition.getType())) {
        return "True".equals(condition.getStatus());
      }
    }
    return false;
  }

  /** Phase Succeeded or Failed: the controller leaves terminal pods out altogether. */
  public static boolean isTerminal(Pod pod) {
    String phase = pod == null || pod.getStatus() == null ? null : pod.getStatus().getPhase();
    return "Succeeded".equals(phase) || "Failed".equals(phase);
  }

  /** The pod has an address; the controller leaves out pods without one. */
  public static boolean hasIp(Pod pod) {
    PodStatus status = pod == null ? null : pod.getStatus();
    if (status == null) {
      return false;
    }
    if (status.getPodIP() != null && !status.getPodIP().isEmpty()) {
      return true;
    }
    return status.getPodIPs() != null && !status.getPodIPs().isEmpty();
  }

  /** A deletion timestamp is set: the pod is shutting down. */
  public static boolean isTerminating(Pod pod) {
    return pod != null
        && pod.getMetadata() != null
        && pod.getMetadata().getDeletionTimestamp() != null;
  }

  /** The controller lists the pod in the Service's slices (ready or not). */
  public static boolean isListed(Pod pod) {
    return pod != null && !isTerminal(pod) && hasIp(pod);
  }

  /**
   * The pod should be a ready endpoint of every port of {@code service} it resolves: listed, not
   * terminating, and Ready (or the Service publishes not-ready addresses).
   */
  public static boolean isExpected(Pod pod, Service service) {
    return isListed(pod)
        && !isTerminating(pod)
        && (isReady(pod) || ServiceSelection.publishesNotReady(service));
  }

  /** {@code metadata.uid}, or {@code ""}. Pods are matched by uid: hostNetwork pods share IPs. */
  public static String uidOf(Pod pod) {
    return pod == null || pod.getMetadata() == null || pod.getMetadata().getUid() == null
        ? ""
        : pod.getMetadata().getUid();
  }
}
