package dev.routesync.xds;

import com.google.protobuf.Any;
import dev.routesync.table.RoutingTable;
import java.util.Optional;

/**
 * Where ADS streams get a cluster's encoded {@code ClusterLoadAssignment}. The agent's is {@link
 * AssignmentCache}, shared by every stream; the push benchmark supplies one that encodes per
 * stream, to measure what sharing saves.
 *
 * <p>Threading: {@link #assignment} runs on every stream's event loop, {@link #published} on the
 * table writer's thread.
 */
interface ClusterAssignments {

  /** The assignment for cluster {@code name} ({@code target}, parsed) from {@code current}. */
  Any assignment(String name, Optional<XdsTarget> target, RoutingTable current);

  /** A new table version, published before the streams are woken for it. */
  void published(RoutingTable table);
}
