package dev.routesync.observe;

import static dev.routesync.observe.Meters.millis;

import dev.routesync.xds.XdsClient;
import dev.routesync.xds.XdsObserver;
import dev.routesync.xds.XdsType;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The xDS server's meters: open ADS streams by client kind and protocol, the streams following each
 * type, responses and the resources they carried, NACKs, and push latency (table publish to
 * response written). Every label is an enum constant ({@link XdsClient} is the client's {@code
 * user_agent_name} reduced to a known kind, or {@code other}), and every series is registered here,
 * at 0, so a hostile client cannot add one.
 */
final class XdsMetrics implements XdsObserver {

  private final Map<XdsClient, AtomicInteger> sotwStreams = new EnumMap<>(XdsClient.class);
  private final Map<XdsClient, AtomicInteger> deltaStreams = new EnumMap<>(XdsClient.class);
  private final Map<XdsType, Map<XdsClient, AtomicInteger>> subscriptions =
      new EnumMap<>(XdsType.class);
  private final Map<XdsType, Counter> responses;
  private final Map<XdsType, Counter> resourcesSent;
  private final Map<XdsType, Counter> nacks;
  private final Map<XdsType, Counter> refused;
  private final Map<XdsType, Timer> pushLatency = new EnumMap<>(XdsType.class);

  XdsMetrics(MeterRegistry registry) {
    for (XdsClient client : XdsClient.values()) {
      sotwStreams.put(client, streamsGauge(registry, client, "sotw"));
      deltaStreams.put(client, streamsGauge(registry, client, "delta"));
    }
    for (XdsType type : XdsType.values()) {
      Map<XdsClient, AtomicInteger> byClient = new EnumMap<>(XdsClient.class);
      for (XdsClient client : XdsClient.values()) {
        AtomicInteger following = new AtomicInteger();
        Gauge.builder("routesync.xds.subscriptions", following, AtomicInteger::get)
            .description("Open ADS streams following a resource type, by type and client kind")
            .tag("type", type.label())
            .tag("client", client.label())
            .register(registry);
        byClient.put(client, following);
      }
      subscriptions.put(type, byClient);
      // The layout of routesync_publish_latency_seconds: the two stages read side by side, watch
      // event to table version to response written.
      pushLatency.put(
          type,
          Timer.builder("routesync.xds.push.latency")
              .description(
                  "From a table version's publish to the xDS response it caused being written, by"
                      + " type")
              .tag("type", type.label())
              .serviceLevelObjectives(
                  millis(1),
                  millis(5),
                  millis(10),
                  millis(25),
                  millis(50),
                  millis(100),
                  millis(250),
                  millis(500),
                  millis(1000),
                  millis(5000))
              .register(registry));
    }
    this.responses =
        Meters.perConstant(
            registry,
            "routesync.xds.responses",
            "xDS responses written, by type",
            XdsType.class,
            "type",
            XdsType::label);
    this.resourcesSent =
        Meters.perConstant(
            registry,
            "routesync.xds.resources.sent",
            "Resources carried by xDS responses, by type",
            XdsType.class,
            "type",
            XdsType::label);
    this.nacks =
        Meters.perConstant(
            registry,
            "routesync.xds.nacks",
            "xDS responses a client rejected (NACK), by type",
            XdsType.class,
            "type",
            XdsType::label);
    this.refused =
        Meters.perConstant(
            registry,
            "routesync.xds.refused.names",
            "Names clients subscribed that are never served (the multi-cluster domain"
                + " clusterset.local), by type",
            XdsType.class,
            "type",
            XdsType::label);
  }

  private static AtomicInteger streamsGauge(MeterRegistry registry, XdsClient client, String api) {
    AtomicInteger open = new AtomicInteger();
    Gauge.builder("routesync.xds.streams", open, AtomicInteger::get)
        .description("Open ADS streams, by client kind and protocol (sotw or delta)")
        .tag("client", client.label())
        .tag("api", api)
        .register(registry);
    return open;
  }

  @Override
  public void streams(XdsClient client, boolean delta, int change) {
    (delta ? deltaStreams : sotwStreams).get(client).addAndGet(change);
  }

  @Override
  public void subscriptions(XdsType type, XdsClient client, int change) {
    subscriptions.get(type).get(client).addAndGet(change);
  }

  @Override
  public void response(XdsType type, int resources) {
    responses.get(type).increment();
    resourcesSent.get(type).increment(resources);
  }

  @Override
  public void nack(XdsType type) {
    nacks.get(type).increment();
  }

  @Override
  public void refused(XdsType type, int count) {
    refused.get(type).increment(count);
  }

  @Override
  public void pushed(XdsType type, Duration latency) {
    // The publish time is the writer's wall clock: a clock stepped back reads as 0, not negative.
    pushLatency.get(type).record(latency.isNegative() ? Duration.ZERO : latency);
  }
}
