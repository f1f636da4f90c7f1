package dev.routesync.observe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.drift.DriftObserver;
import dev.routesync.drift.DriftObserver.PortSeries;
import dev.routesync.rules.MissingReason;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

/** The detector's gauges as Prometheus scrapes them: set, kept at 0, and removed. */
class DriftMetricsTest {

  private static final String SERIES =
      "routesync_drift_pods{namespace=\"shop\",port=\"http\",reason=\"NamedPortNotFound\","
          + "service=\"quote\"}";
  private static final String READY =
      "routesync_service_ready_endpoints{namespace=\"shop\",port=\"http\",service=\"quote\"}";

  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final DriftObserver drift = new Metrics(registry).drift();
  private final PortSeries quote = new PortSeries("shop", "quote", "http");

  @Test
  void aDriftSeriesShowsItsCountThenZeroThenGoes() {
    drift.driftPods(quote, MissingReason.NAMED_PORT_NOT_FOUND, 8);
    drift.readyEndpoints(quote, 0);
    assertThat(registry.scrape()).contains(SERIES + " 8.0").contains(READY + " 0.0");

    drift.driftPods(quote, MissingReason.NAMED_PORT_NOT_FOUND, 0);
    drift.readyEndpoints(quote, 8);
    assertThat(registry.scrape()).contains(SERIES + " 0.0").contains(READY + " 8.0");

    drift.removeDriftPods(quote, MissingReason.NAMED_PORT_NOT_FOUND);
    drift.removeReadyEndpoints(quote);
    assertThat(registry.scrape()).doesNotContain("routesync_drift_pods{").doesNotContain(READY);

    drift.driftPods(quote, MissingReason.NAMED_PORT_NOT_FOUND, 1); // and can come back
    assertThat(registry.scrape()).contains(SERIES + " 1.0");
  }
}
