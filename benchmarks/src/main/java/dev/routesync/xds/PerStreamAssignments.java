package dev.routesync.xds;

import com.google.protobuf.Any;
import dev.routesync.table.RoutingTable;
import dev.routesync.table.ServiceEndpoints;
import java.util.Optional;

/**
 * {@link XdsPushBenchmark}'s baseline: every call encodes anew, as if each stream encoded its own
 * assignments, and nothing is kept; the same bytes as the agent's shared {@link AssignmentCache},
 * which {@link XdsPushBenchmark#setUp} checks.
 */
final class PerStreamAssignments implements ClusterAssignments {

  @Override
  public Any assignment(String name, Optional<XdsTarget> target, RoutingTable current) {
    if (target.isEmpty()) {
      return AssignmentCache.noSuchService(name);
    }
    Optional<ServiceEndpoints> service = current.get(target.get().service());
    if (service.isEmpty() || PortSelection.of(service.get(), target.get().port()).isEmpty()) {
      return AssignmentCache.noSuchService(name);
    }
    return Any.pack(XdsResources.assignment(name, target, service));
  }

  @Override
  public void published(RoutingTable table) {}
}
