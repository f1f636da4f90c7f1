package dev.routesync.observe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.kube.watch.WatchObserver;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The agent runs several watches (EndpointSlices, Services) but exports one connection: connected
 * only while every watch is, disconnected for the longest outage. Before, the last watch to report
 * set the shared gauge, and a Services watch that was down hid behind a slice watch that was up.
 */
class ApiConnectionTest {

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final Metrics metrics = new Metrics(registry);
  private final WatchObserver slices = metrics.watch("EndpointSlice");
  private final WatchObserver services = metrics.watch("Service");
  private final AtomicLong slicesDown = new AtomicLong();
  private final AtomicLong servicesDown = new AtomicLong();

  {
    slices.bindDisconnected(slicesDown::get);
    services.bindDisconnected(servicesDown::get);
  }

  private double connected() {
    return registry.get("routesync.api.connected").gauge().value();
  }

  private double disconnectedSeconds() {
    return registry.get("routesync.api.disconnected").gauge().value();
  }

  @Test
  void connectedOnlyWhileEveryWatchIs() {
    assertThat(connected()).isZero();

    slices.connected(true);
    assertThat(connected()).as("the Services watch has not connected yet").isZero();

    services.connected(true);
    assertThat(connected()).isEqualTo(1.0);

    services.connected(false);
    slices.connected(true); // the last report is the slice watch's: still not connected
    assertThat(connected()).isZero();
  }

  @Test
  void disconnectedIsTheLongestOutage() {
    slicesDown.set(2_000_000_000L);
    servicesDown.set(7_000_000_000L);

    assertThat(disconnectedSeconds()).isEqualTo(7.0);

    servicesDown.set(0);
    assertThat(disconnectedSeconds()).isEqualTo(2.0);
  }
}
