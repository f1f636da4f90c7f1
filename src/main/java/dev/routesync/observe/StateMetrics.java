package dev.routesync.observe;

import dev.routesync.state.LoadFailure;
import dev.routesync.state.StateObserver;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/** The state file's loads and writes. */
final class StateMetrics implements StateObserver {

  private final Map<LoadFailure, Counter> loadFailures;
  private final Counter writesOk;
  private final Counter writesFailed;
  private final AtomicInteger restored = new AtomicInteger();

  StateMetrics(MeterRegistry registry) {
    this.loadFailures =
        Meters.perConstant(
            registry,
            "routesync.state.load.failures",
            "State files found at start and not loaded, by reason",
            LoadFailure.class,
            "reason",
            LoadFailure::label);
    this.writesOk = writes(registry, "ok");
    this.writesFailed = writes(registry, "failed");
    Gauge.builder("routesync.state.restored.services", restored, AtomicInteger::get)
        .description("Services restored from the state file at start; 0 after a cold start")
        .register(registry);
  }

  private static Counter writes(MeterRegistry registry, String result) {
    return Counter.builder("routesync.state.writes")
        .description("Writes of the state file, by result")
        .tag("result", result)
        .register(registry);
  }

  @Override
  public void loadFailed(LoadFailure reason) {
    loadFailures.get(reason).increment();
  }

  @Override
  public void restored(int services) {
    restored.set(services);
  }

  @Override
  public void written(boolean ok) {
    (ok ? writesOk : writesFailed).increment();
  }
}
