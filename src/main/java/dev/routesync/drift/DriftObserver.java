package dev.routesync.drift;

import dev.routesync.rules.MissingReason;

/**
 * The detector's gauges, in its own terms; {@code observe/} implements them with Micrometer. The
 * detector decides which series exist (only Services with pods on this node), so their number is
 * bounded by this node's pods, never by the cluster's Services.
 *
 * <p>Threading: called on the sync context; implementations must be cheap and must not throw.
 */
public interface DriftObserver {

  /** One Service port: {@code namespace}, {@code service} and {@code port} labels. */
  record PortSeries(String namespace, String service, String port) {}

  /**
   * {@code routesync_drift_pods{namespace,service,port,reason}} is {@code pods} (created if new).
   */
  void driftPods(PortSeries series, MissingReason reason, int pods);

  /** The Service has no pods on this node any more: drop that drift series. */
  void removeDriftPods(PortSeries series, MissingReason reason);

  /** {@code routesync_service_ready_endpoints{namespace,service,port}} is {@code endpoints}. */
  void readyEndpoints(PortSeries series, int endpoints);

  /** The Service selects no pod on this node any more (or lost the port): drop that series. */
  void removeReadyEndpoints(PortSeries series);

  /** Records nothing: for a benchmark that measures the detector alone. */
  DriftObserver NONE =
      new DriftObserver() {
        @Override
        public void driftPods(PortSeries series, MissingReason reason, int pods) {}

        @Override
        public void removeDriftPods(PortSeries series, MissingReason reason) {}

        @Override
        public void readyEndpoints(PortSeries series, int endpoints) {}

        @Override
        public void removeReadyEndpoints(PortSeries series) {}
      };
}
