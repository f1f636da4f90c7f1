package dev.routesync.observe;

import dev.routesync.sidecars.PropagationHistogram;
import dev.routesync.sidecars.PropagationObserver;
import dev.routesync.sidecars.Protocol;
import dev.routesync.sidecars.Sidecars;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The sidecars' sync meters: {@code routesync_clients_behind} (streams behind the newest version by
 * more than 5 s, read when scraped) and {@code routesync_propagation_duration_seconds} (a change's
 * trigger time to a client's ACK of the version carrying it, by protocol: seed 001's "propagation
 * buffer", measured). The only label is the protocol, an enum: a client's name, node id or NACK
 * text never becomes one.
 */
final class ClientMetrics implements PropagationObserver {

  private final Map<Protocol, Timer> propagation = new EnumMap<>(Protocol.class);

  ClientMetrics(MeterRegistry registry, Sidecars sidecars) {
    Gauge.builder("routesync.clients.behind", sidecars, Sidecars::behind)
        .description(
            "Watch and ADS streams behind the newest published version by more than 5 s"
                + " (a response unacknowledged or unwritten)")
        .register(registry);
    Gauge.builder("routesync.clients", sidecars, Sidecars::size)
        .description("Watch and ADS streams open, as GET /v1/clients counts them")
        .register(registry);
    long[] bounds = PropagationHistogram.boundsMillis();
    Duration[] buckets = new Duration[bounds.length];
    for (int i = 0; i < bounds.length; i++) {
      buckets[i] = Duration.ofMillis(bounds[i]);
    }
    for (Protocol protocol : Protocol.values()) {
      propagation.put(
          protocol,
          Timer.builder("routesync.propagation.duration")
              .description(
                  "From a change's endpoints.kubernetes.io/last-change-trigger-time to a client's"
                      + " acknowledgement of the version carrying it (ADS: the ACK; Watch: the"
                      + " message written out), one sample per response, from its oldest change")
              .tag("protocol", protocol.label())
              .serviceLevelObjectives(buckets)
              .register(registry));
    }
    sidecars.observeWith(this);
  }

  @Override
  public void propagated(Protocol protocol, long millis) {
    propagation.get(protocol).record(millis, TimeUnit.MILLISECONDS);
  }
}
