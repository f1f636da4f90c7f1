package dev.routesync.bench;

import static dev.routesync.testing.TableStates.states;

import dev.routesync.table.Endpoint;
import dev.routesync.table.RoutingTable;
import dev.routesync.table.ServiceKey;
import dev.routesync.table.ServiceState;
import dev.routesync.table.TableWriter;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A table of {@code n} Services and two alternating batches of {@code k} real changes to it: what
 * {@link FlushCostBenchmark} and {@link FlushRatioBenchmark} flush. Each {@link #flush} publishes
 * the next batch (alternating two endpoint generations, so nothing is an idempotent no-op) into the
 * current table and keeps the new version, exactly as the reconciler does. One thread only.
 */
final class FlushFixture {

  private final TableWriter writer;
  private final Map<ServiceKey, ServiceState>[] batches;
  private int next;

  @SuppressWarnings("unchecked")
  FlushFixture(int n, int k, int endpointsPerService) {
    writer = new TableWriter(Clock.systemUTC(), RoutingTable.DEFAULT_DELTA_LOG_CAPACITY);
    ServiceKey[] keys = Tables.keys(n);
    writer.publish(states(Tables.services(keys, endpointsPerService)), List.of());
    // Two alternating batches of k changes spread over the key space, keyed by the very instances
    // the table holds, as the reconciler's are (it passes the watch store's key, which the table
    // kept when the Service first arrived): an equal copy would have each change compare two
    // namespace and two name strings byte by byte, four reads the agent does not make, and at
    // n = 100k four likely cache misses.
    batches = new Map[2];
    for (int generation = 0; generation < 2; generation++) {
      Map<ServiceKey, List<Endpoint>> batch = new HashMap<>();
      for (int i = 0; i < k; i++) {
        int service = (int) ((long) i * n / k);
        batch.put(keys[service], Tables.endpoints(service, endpointsPerService, generation + 1));
      }
      batches[generation] = states(batch);
    }
  }

  RoutingTable flush() {
    Map<ServiceKey, ServiceState> batch = batches[next];
    next ^= 1;
    return writer.publish(batch, List.of());
  }
}
