package dev.routesync.observe;

import dev.routesync.kube.SkipObserver;
import dev.routesync.kube.translate.SkipReason;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;

/** What translation skipped, by reason. */
final class SkipMetrics implements SkipObserver {

  private final Map<SkipReason, Counter> skipped;

  SkipMetrics(MeterRegistry registry) {
    this.skipped =
        Meters.perConstant(
            registry,
            "routesync.objects.skipped",
            "Malformed objects or parts skipped during translation, by reason",
            SkipReason.class,
            "reason",
            SkipReason::label);
  }

  @Override
  public void skipped(SkipReason reason) {
    skipped.get(reason).increment();
  }
}
