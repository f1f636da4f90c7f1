package dev.routesync.testing;

import dev.routesync.table.Endpoint;
import dev.routesync.table.ServiceKey;
import dev.routesync.table.ServiceState;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Table input for tests (and, through the test-jar, benchmarks) that only care about endpoints:
 * each Service's state with no declared ports, as when the Service itself is not known.
 */
public final class TableStates {

  private TableStates() {}

  public static Map<ServiceKey, ServiceState> states(Map<ServiceKey, List<Endpoint>> endpoints) {
    Map<ServiceKey, ServiceState> states = new LinkedHashMap<>();
    endpoints.forEach((key, list) -> states.put(key, ServiceState.of(list)));
    return states;
  }
}
