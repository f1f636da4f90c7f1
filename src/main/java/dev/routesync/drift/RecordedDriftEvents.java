package dev.routesync.drift;

import dev.routesync.kube.events.EventRecorder;
import dev.routesync.kube.events.EventSubject;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;

/**
 * Each new drift as a Warning Event ({@code events.k8s.io/v1}, reason {@code
 * PodNotInServiceEndpoints}) through the agent's {@link EventRecorder}: regarding the pod, related
 * the Service, one Event per (pod uid, Service, port, reason) whose series the recorder counts. The
 * recorder queues, dedups and rate-limits; {@link #drifted} never blocks the sync context.
 */
public final class RecordedDriftEvents implements DriftEvents {

  /** What the agent was doing when it noticed: routing the Service's traffic. */
  static final String ACTION = "Routing";

  private final EventRecorder recorder;

  public RecordedDriftEvents(EventRecorder recorder) {
    this.recorder = recorder;
  }

  @Override
  public void drifted(DriftEntry entry, Pod pod, Service service) {
    recorder.warn(subject(entry, service));
  }

  /** The Event of one drift. */
  static EventSubject subject(DriftEntry entry, Service service) {
    String serviceUid = service.getMetadata() == null ? null : service.getMetadata().getUid();
    String port = entry.port().isEmpty() ? "(unnamed)" : entry.port();
    return new EventSubject(
        String.join(
            "\u0000",
            entry.podUid(),
            entry.namespace(),
            entry.service(),
            entry.port(),
            entry.reasonLabel()),
        EventSubject.coreReference("Pod", entry.namespace(), entry.pod(), entry.podUid()),
        EventSubject.coreReference("Service", entry.namespace(), entry.service(), serviceUid),
        REASON,
        ACTION,
        "Ready but not an endpoint of Service "
            + entry.service()
            + " port "
            + port
            + ": "
            + entry.reasonLabel()
            + ". "
            + entry.message()
            + ". Declared port names: "
            + (entry.declaredNames().isEmpty() ? "none" : String.join(", ", entry.declaredNames()))
            + ".");
  }
}
