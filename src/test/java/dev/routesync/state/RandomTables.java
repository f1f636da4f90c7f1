package dev.routesync.state;

import dev.routesync.table.Endpoint;
import dev.routesync.table.EndpointHints;
import dev.routesync.table.Port;
import dev.routesync.table.RoutingTable;
import dev.routesync.table.ServiceKey;
import dev.routesync.table.ServiceState;
import dev.routesync.table.ServiceTraffic;
import dev.routesync.table.TableWriter;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;

/**
 * Seeded random tables built the way the agent builds them (a {@link TableWriter} publishing random
 * upserts and removals), so entries carry different versions; every optional field of an endpoint
 * is sometimes absent, and names use non-ASCII text where the format allows any UTF-8.
 */
final class RandomTables {

  static final Instant T0 = Instant.parse("2026-12-01T10:00:00.123456Z");

  private static final List<String> PROTOCOLS = List.of("TCP", "UDP", "SCTP");

  private RandomTables() {}

  static RoutingTable table(Random random) {
    TableWriter writer =
        new TableWriter(
            Clock.fixed(T0, ZoneOffset.UTC), 1024, random.nextInt(3) == 0 ? 0 : 1_700_000_000L);
    int rounds = random.nextInt(6);
    for (int round = 0; round < rounds; round++) {
      Map<ServiceKey, ServiceState> upserts = new HashMap<>();
      int count = random.nextInt(12);
      for (int i = 0; i < count; i++) {
        upserts.put(key(random), state(random));
      }
      Set<ServiceKey> removals = random.nextBoolean() ? Set.of() : Set.of(key(random));
      removals =
          removals.stream()
              .filter(k -> !upserts.containsKey(k))
              .collect(java.util.stream.Collectors.toSet());
      writer.publish(upserts, removals);
    }
    return writer.current();
  }

  private static ServiceKey key(Random random) {
    return new ServiceKey("ns-" + random.nextInt(4), "svc-" + random.nextInt(20));
  }

  private static ServiceState state(Random random) {
    TreeMap<String, Endpoint> byIp = new TreeMap<>();
    int count = random.nextInt(6);
    for (int i = 0; i < count; i++) {
      String ip =
          random.nextBoolean()
              ? "10." + random.nextInt(256) + "." + random.nextInt(256) + "." + random.nextInt(256)
              : "fd00::" + Integer.toHexString(random.nextInt(65536));
      Endpoint endpoint =
          new Endpoint(
              ip,
              ports(random),
              random.nextBoolean() ? "zone-" + random.nextInt(3) : null,
              hints(random),
              random.nextBoolean() ? "node-" + random.nextInt(5) : null,
              random.nextBoolean() ? "pod-ä-" + random.nextInt(100) : null,
              random.nextBoolean(),
              random.nextBoolean(),
              random.nextBoolean());
      // A dual-stack pod's other address, of the other family.
      if (random.nextInt(4) == 0) {
        endpoint =
            endpoint.withAdditionalAddresses(
                List.of(
                    endpoint.isIpv4()
                        ? "fd01::" + Integer.toHexString(random.nextInt(65536))
                        : "11.0.0." + random.nextInt(256)));
      }
      byIp.put(ip, endpoint);
    }
    return new ServiceState(
        new ArrayList<>(byIp.values()),
        ports(random),
        traffic(random),
        dev.routesync.table.TopologyDecision.NONE);
  }

  private static EndpointHints hints(Random random) {
    if (random.nextInt(3) != 0) {
      return EndpointHints.NONE;
    }
    List<String> zones = random.nextBoolean() ? List.of("zone-" + random.nextInt(3)) : List.of();
    List<String> nodes = random.nextBoolean() ? List.of("node-a", "node-b") : List.of();
    return EndpointHints.of(zones, nodes);
  }

  private static ServiceTraffic traffic(Random random) {
    return switch (random.nextInt(7)) {
      case 0 -> ServiceTraffic.DEFAULT;
      case 1 -> ServiceTraffic.of("PreferClose", false);
      case 2 -> ServiceTraffic.of(null, true);
      case 3 -> ServiceTraffic.of(null, false, true, null);
      case 4 -> ServiceTraffic.of(null, false, false, "db.example.com");
      case 5 -> ServiceTraffic.of(null, false, /* ipv6Primary= */ true);
      default -> ServiceTraffic.of("PreferSameNode", true);
    };
  }

  private static List<Port> ports(Random random) {
    TreeMap<String, Port> byName = new TreeMap<>();
    int count = random.nextInt(4);
    for (int i = 0; i < count; i++) {
      String name = i == 0 && random.nextBoolean() ? "" : "p" + random.nextInt(5);
      byName.put(
          name,
          new Port(
              name, 1 + random.nextInt(65535), PROTOCOLS.get(random.nextInt(PROTOCOLS.size()))));
    }
    return new ArrayList<>(byName.values());
  }
}
