package dev.routesync.table;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;

/**
 * The one place per-port ready counts are computed, for the gRPC and HTTP answers and {@code
 * routesync get services} alike.
 *
 * <p>Why per port: the EndpointSlice controller lists a ready pod that resolves none of the
 * Service's ports (a renamed named {@code targetPort}) in a slice with {@code ports: null}.
 * Counting endpoints would call that Service healthy while no endpoint can take traffic on its
 * port.
 */
public final class PortCounts {

  private PortCounts() {}

  /**
   * One count per Service port name, sorted by name.
   *
   * <ul>
   *   <li>With the Service's declared ports: one entry per declared port.
   *   <li>Without them (the Service is not known, or declares none): one entry per port name the
   *       endpoints carry, with port number 0.
   *   <li>No ports either way (headless without ports): no entries; the Service is counted by its
   *       endpoints.
   * </ul>
   */
  public static List<PortCount> of(List<Endpoint> endpoints, List<Port> servicePorts) {
    int listed = 0;
    // Name -> ready endpoints carrying it; a TreeMap so the answer is sorted by name.
    TreeMap<String, Integer> readyByName = new TreeMap<>();
    TreeMap<String, String> protocolSeen = new TreeMap<>();
    for (Endpoint endpoint : endpoints) {
      if (!endpoint.ready()) {
        continue;
      }
      listed++;
      Set<String> names = new HashSet<>();
      for (Port port : endpoint.ports()) {
        if (names.add(port.name())) {
          readyByName.merge(port.name(), 1, Integer::sum);
          protocolSeen.putIfAbsent(port.name(), port.protocol());
        }
      }
    }
    List<PortCount> counts = new ArrayList<>();
    if (!servicePorts.isEmpty()) {
      TreeMap<String, Port> declared = new TreeMap<>();
      servicePorts.forEach(port -> declared.putIfAbsent(port.name(), port));
      for (Port port : declared.values()) {
        counts.add(
            new PortCount(
                port.name(),
                port.port(),
                port.protocol(),
                readyByName.getOrDefault(port.name(), 0),
                listed));
      }
      return List.copyOf(counts);
    }
    for (var entry : readyByName.entrySet()) {
      counts.add(
          new PortCount(
              entry.getKey(), 0, protocolSeen.get(entry.getKey()), entry.getValue(), listed));
    }
    return List.copyOf(counts);
  }
}
