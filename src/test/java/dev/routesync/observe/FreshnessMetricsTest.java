package dev.routesync.observe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.table.Freshness;
import dev.routesync.table.TableTrust;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** {@code routesync_table_stale} and {@code routesync_last_sync_timestamp_seconds}, as scraped. */
class FreshnessMetricsTest {

  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final TableTrust trust = TableTrust.untrusted();
  private final AtomicLong down = new AtomicLong();
  private final Freshness freshness = new Freshness(trust, down::get, Duration.ofSeconds(10));

  FreshnessMetricsTest() {
    new Metrics(registry).bindFreshness(freshness);
  }

  private String sample(String name) {
    for (String line : registry.scrape().split("\n")) {
      if (line.startsWith(name + " ")) {
        return line.substring(name.length() + 1);
      }
    }
    throw new AssertionError(name + " not scraped");
  }

  @Test
  void staleAndNoSyncTimeBeforeTheFirstWordFromTheApiServer() {
    assertThat(sample("routesync_table_stale")).isEqualTo("1.0");
    assertThat(sample("routesync_last_sync_timestamp_seconds")).isEqualTo("NaN");
  }

  @Test
  void followsTheTrustTheOutageAndTheLastWord() {
    freshness.heard(Instant.parse("2026-12-01T14:02:03.250Z"));
    trust.raise(TableTrust.Level.RESTORED);
    assertThat(value("routesync.table.stale")).as("restored").isEqualTo(1);
    trust.raise(TableTrust.Level.SYNCED);
    assertThat(value("routesync.table.stale")).isZero();
    assertThat(value("routesync.last.sync.timestamp")).isEqualTo(1_796_133_723.25);
    down.set(Duration.ofSeconds(11).toNanos());
    assertThat(value("routesync.table.stale")).isEqualTo(1);
    down.set(0);
    assertThat(value("routesync.table.stale")).isZero();
  }

  private double value(String name) {
    return registry.get(name).gauge().value();
  }
}
