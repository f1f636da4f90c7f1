package dev.routesync.kube.watch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.observe.Metrics;
import dev.routesync.sync.FakeScheduler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ConnectivityTest {

  private final FakeScheduler clock = new FakeScheduler(-5_000_000_000L);
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final Connectivity connectivity =
      new Connectivity("EndpointSlice", clock, new Metrics(registry).watch("EndpointSlice"));

  private double connectedGauge() {
    return registry.get("routesync.api.connected").gauge().value();
  }

  private double disconnectedSecondsGauge() {
    return registry.get("routesync.api.disconnected").gauge().value();
  }

  @Test
  void anOutageLastsFromTheFirstDownSampleUntilUp() {
    connectivity.up();
    clock.advance(Duration.ofSeconds(1));

    connectivity.down();
    clock.advance(Duration.ofSeconds(2));
    connectivity.down(); // a later sample of the same outage keeps its start
    clock.advance(Duration.ofSeconds(3));

    assertThat(connectivity.outageNanos()).isEqualTo(Duration.ofSeconds(5).toNanos());
    assertThat(connectivity.disconnectedNanos()).isEqualTo(Duration.ofSeconds(5).toNanos());
    assertThat(disconnectedSecondsGauge()).isEqualTo(5.0);
    assertThat(connectedGauge()).isZero();

    connectivity.up();

    assertThat(connectivity.outageNanos()).isZero();
    assertThat(connectivity.disconnectedNanos()).isZero();
    assertThat(disconnectedSecondsGauge()).isZero();
    assertThat(connectedGauge()).isEqualTo(1.0);
  }

  @Test
  void aNewOutageStartsAfresh() {
    connectivity.down();
    clock.advance(Duration.ofSeconds(30));
    connectivity.up();
    clock.advance(Duration.ofSeconds(1));

    connectivity.down();
    clock.advance(Duration.ofMillis(250));

    assertThat(connectivity.outageNanos()).isEqualTo(Duration.ofMillis(250).toNanos());
  }

  @Test
  void startsUpUntilSampledAndStoppingIsNotConnected() {
    assertThat(connectivity.outageNanos()).isZero();
    assertThat(disconnectedSecondsGauge()).isZero();

    connectivity.up();
    connectivity.stopped();

    assertThat(connectedGauge()).isZero();
  }
}
