package dev.routesync.bench;

import dev.routesync.table.Endpoint;
import dev.routesync.table.Port;
import dev.routesync.table.ServiceKey;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Realistic table contents for benchmarks: shapes from Kubernetes' tested limits. */
public final class Tables {

  /** Ports shared by every endpoint of a slice, as the translator shares them. */
  public static final List<Port> HTTP = List.of(new Port("http", 8080, "TCP"));

  private static final String[] ZONES = {"zone-a", "zone-b", "zone-c"};

  private Tables() {}

  public static ServiceKey key(int service) {
    return new ServiceKey("ns-" + (service % 100), "svc-" + service);
  }

  /**
   * {@code count} endpoints for one service; {@code generation} shifts the IPs so two generations
   * of the same service always differ (a real change, never an idempotent no-op).
   */
  public static List<Endpoint> endpoints(int service, int count, int generation) {
    List<Endpoint> endpoints = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      int host = service * 256 + i + generation;
      String ip = "10." + ((host >> 16) & 255) + "." + ((host >> 8) & 255) + "." + (host & 255);
      endpoints.add(
          new Endpoint(
              ip,
              HTTP,
              ZONES[i % ZONES.length],
              "node-" + (i % 50),
              "svc-" + service + "-" + Integer.toHexString(host),
              true,
              true,
              false));
    }
    endpoints.sort(null);
    return endpoints;
  }

  /** The keys of services 0 to {@code services - 1}, by index. */
  public static ServiceKey[] keys(int services) {
    ServiceKey[] keys = new ServiceKey[services];
    for (int s = 0; s < services; s++) {
      keys[s] = key(s);
    }
    return keys;
  }

  /** {@code services} services of {@code perService} endpoints each. */
  public static Map<ServiceKey, List<Endpoint>> services(int services, int perService) {
    return services(keys(services), perService);
  }

  /**
   * The services {@code keys} name (service {@code s} under {@code keys[s]}, the very instance), of
   * {@code perService} endpoints each.
   */
  public static Map<ServiceKey, List<Endpoint>> services(ServiceKey[] keys, int perService) {
    Map<ServiceKey, List<Endpoint>> all = new HashMap<>(keys.length * 2);
    for (int s = 0; s < keys.length; s++) {
      all.put(keys[s], endpoints(s, perService, 0));
    }
    return all;
  }
}
