package dev.routesync.observe;

import dev.routesync.kube.events.EventObserver;
import dev.routesync.kube.events.EventResult;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;

/**
 * What became of the Kubernetes Events the agent meant to write, by result. Not {@code
 * routesync_events_total}: that name counts watch events, with other labels.
 */
final class KubernetesEventMetrics implements EventObserver {

  private final Map<EventResult, Counter> results;

  KubernetesEventMetrics(MeterRegistry registry) {
    this.results =
        Meters.perConstant(
            registry,
            "routesync.kubernetes.events",
            "Kubernetes Events (events.k8s.io) the agent wrote or gave up on, by result",
            EventResult.class,
            "result",
            EventResult::label);
  }

  @Override
  public void recorded(EventResult result) {
    results.get(result).increment();
  }
}
