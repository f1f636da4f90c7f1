package dev.routesync.e2e;

import dev.routesync.api.v1.ServiceEndpoints;
import dev.routesync.api.v1.ServiceRef;
import dev.routesync.api.v1.WatchEvent;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** What the agent publishes for one Service, asked now or replayed version by version. */
final class Published {

  private Published() {}

  /** The Service's {@code ip:port} set as Resolve answers it now; empty when it is NOT_FOUND. */
  static Optional<Set<String>> now(AgentProcess agent, String namespace, String name) {
    try {
      return Optional.of(ReadySets.fromAgent(agent.grpc().resolve(namespace, name)));
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
        return Optional.empty();
      }
      throw e;
    }
  }

  /** One published version as a Watch subscriber holds it, for one Service. */
  record Version(long version, boolean reset, boolean stale, Optional<Set<String>> endpoints) {}

  /**
   * Replays a Watch stream as a subscriber applies it (a reset replaces everything) and returns
   * {@code namespace/name}'s endpoints after every event, in order.
   */
  static List<Version> history(List<WatchEvent> events, String namespace, String name) {
    Map<String, ServiceEndpoints> table = new HashMap<>();
    String key = namespace + "/" + name;
    List<Version> versions = new ArrayList<>();
    for (WatchEvent event : events) {
      if (event.getReset()) {
        table.clear();
      }
      for (ServiceEndpoints service : event.getUpsertedList()) {
        table.put(service.getNamespace() + "/" + service.getName(), service);
      }
      for (ServiceRef removed : event.getRemovedList()) {
        table.remove(removed.getNamespace() + "/" + removed.getName());
      }
      ServiceEndpoints service = table.get(key);
      versions.add(
          new Version(
              event.getVersion(),
              event.getReset(),
              event.getStale(),
              Optional.ofNullable(service).map(ReadySets::fromAgent)));
    }
    return versions;
  }
}
