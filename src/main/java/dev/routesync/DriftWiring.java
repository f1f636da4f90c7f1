package dev.routesync;

import dev.routesync.config.AgentConfig;
import dev.routesync.config.Source;
import dev.routesync.drift.DriftDetector;
import dev.routesync.drift.RecordedDriftEvents;
import dev.routesync.kube.events.EventRecorder;
import dev.routesync.kube.events.EventRecorderSettings;
import dev.routesync.kube.events.Reporter;
import dev.routesync.observe.Metrics;
import dev.routesync.rules.PortSearch;
import dev.routesync.sync.VertxScheduler;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.vertx.core.Vertx;
import java.time.Clock;
import java.util.Optional;

/** Whether the drift detector runs, and the detector with its Event recorder when it does. */
record DriftWiring(
    AgentConfig config, Vertx vertx, KubernetesClient client, Clock clock, Metrics metrics) {

  /** Why the drift detector does not run; empty when it does. */
  static Optional<String> offReason(AgentConfig config) {
    if (!config.drift().enabled()) {
      return Optional.of("turned off (--drift-detector=false)");
    }
    if (config.nodeName().isEmpty()) {
      return Optional.of(
          "no node name (set --node-name or NODE_NAME, from the downward API's spec.nodeName)");
    }
    if (config.source() != Source.ENDPOINTSLICES) {
      return Optional.of(
          "--source endpoints: the detector needs EndpointSlices (their pod uids per port)");
    }
    return Optional.empty();
  }

  /** The drift detector's Kubernetes Events, written by a worker of their own from now on. */
  EventRecorder events() {
    return EventRecorder.start(
        client,
        Reporter.onNode(Reporter.DRIFT_DETECTOR, config.nodeName()),
        EventRecorderSettings.defaults(),
        new VertxScheduler(vertx),
        clock,
        metrics.kubernetesEvents());
  }

  DriftDetector detector(EventRecorder events) {
    return new DriftDetector(
        config.nodeName(),
        config.drift().grace(),
        config.coalescer().debounce(),
        new VertxScheduler(vertx),
        clock,
        // Live clusters: sidecar ports resolve on 1.32+; an unresolved one on an older cluster is
        // then reported as NotInEndpoints after the grace, never as certain.
        PortSearch.CONTAINERS_AND_SIDECARS,
        metrics.drift(),
        new RecordedDriftEvents(events));
  }
}
