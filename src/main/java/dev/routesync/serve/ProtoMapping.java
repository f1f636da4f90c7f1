package dev.routesync.serve;

import com.google.protobuf.Timestamp;
import dev.routesync.api.v1.ListResponse;
import dev.routesync.api.v1.ServiceRef;
import dev.routesync.api.v1.StatusResponse;
import dev.routesync.table.Endpoint;
import dev.routesync.table.EndpointHints;
import dev.routesync.table.FreshnessView;
import dev.routesync.table.Port;
import dev.routesync.table.PortCount;
import dev.routesync.table.RoutingTable;
import dev.routesync.table.ServiceEndpoints;
import dev.routesync.table.ServiceKey;
import dev.routesync.table.TableTrust;
import dev.routesync.table.TopologyDecision;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;

/**
 * Table records to their protobuf messages: what gRPC sends, and, printed by {@link
 * dev.routesync.api.ApiJson}, what the HTTP API serves.
 */
final class ProtoMapping {

  private ProtoMapping() {}

  /** The answer to List and to {@code GET /v1/services}. */
  static ListResponse list(
      long tableVersion, Collection<ServiceEndpoints> services, FreshnessView freshness) {
    ListResponse.Builder builder =
        ListResponse.newBuilder().setVersion(tableVersion).setStale(freshness.stale());
    freshness.syncedAt().ifPresent(at -> builder.setSyncedAt(timestamp(at)));
    for (ServiceEndpoints service : services) {
      builder.addServices(service(service));
    }
    return builder.build();
  }

  /** The answer to Status and to {@code GET /v1/status}: answered whatever the trust. */
  static StatusResponse status(RoutingTable table, FreshnessView freshness) {
    Duration down = freshness.disconnectedFor();
    StatusResponse.Builder builder =
        StatusResponse.newBuilder()
            .setVersion(table.version())
            .setServiceCount(table.serviceCount())
            // A node's endpoints never reach 2^32; clamp rather than wrap if they ever did.
            .setEndpointCount((int) Math.min(table.endpointCount(), 0xFFFF_FFFFL))
            .setBuiltAt(timestamp(table.builtAt()))
            .setStale(freshness.stale())
            .setTrust(trust(freshness.level()))
            .setConnected(freshness.connected())
            .setDisconnectedFor(
                com.google.protobuf.Duration.newBuilder()
                    .setSeconds(down.getSeconds())
                    .setNanos(down.getNano()));
    freshness.syncedAt().ifPresent(at -> builder.setSyncedAt(timestamp(at)));
    return builder.build();
  }

  static StatusResponse.Trust trust(TableTrust.Level level) {
    return switch (level) {
      case NONE -> StatusResponse.Trust.NOT_SYNCED;
      case RESTORED -> StatusResponse.Trust.RESTORED;
      case SYNCED -> StatusResponse.Trust.SYNCED;
    };
  }

  static Timestamp timestamp(Instant at) {
    return Timestamp.newBuilder().setSeconds(at.getEpochSecond()).setNanos(at.getNano()).build();
  }

  static dev.routesync.api.v1.ServiceEndpoints service(ServiceEndpoints service) {
    dev.routesync.api.v1.ServiceEndpoints.Builder builder =
        dev.routesync.api.v1.ServiceEndpoints.newBuilder()
            .setNamespace(service.key().namespace())
            .setName(service.key().name())
            .setVersion(service.version());
    TopologyDecision decision = service.topology();
    for (Endpoint endpoint : service.endpoints()) {
      builder.addEndpoints(endpoint(endpoint, decision.selects(endpoint)));
    }
    builder.setTopology(topology(service));
    if (service.traffic().isExternalName()) {
      builder.setExternalName(service.traffic().externalName());
    }
    for (PortCount count : service.portCounts()) {
      builder.addPortCounts(
          dev.routesync.api.v1.PortCount.newBuilder()
              .setName(count.name())
              .setPort(count.port())
              .setProtocol(count.protocol())
              .setReady(count.ready())
              .setListed(count.listed()));
    }
    return builder.build();
  }

  static dev.routesync.api.v1.Topology topology(ServiceEndpoints service) {
    TopologyDecision decision = service.topology();
    return dev.routesync.api.v1.Topology.newBuilder()
        .setMode(
            switch (decision.mode()) {
              case NONE -> dev.routesync.api.v1.Topology.Mode.NONE;
              case SAME_ZONE -> dev.routesync.api.v1.Topology.Mode.SAME_ZONE;
              case SAME_NODE -> dev.routesync.api.v1.Topology.Mode.SAME_NODE;
              case LOCAL -> dev.routesync.api.v1.Topology.Mode.LOCAL;
              case NO_LOCAL_ENDPOINT -> dev.routesync.api.v1.Topology.Mode.NO_LOCAL_ENDPOINT;
            })
        .setReason(decision.reason())
        .setNode(orEmpty(decision.node()))
        .setZone(orEmpty(decision.zone()))
        .setTrafficDistribution(orEmpty(service.traffic().trafficDistribution()))
        .setInternalTrafficPolicy(service.traffic().internalLocal() ? "Local" : "Cluster")
        .build();
  }

  static dev.routesync.api.v1.Endpoint endpoint(Endpoint endpoint, boolean selected) {
    String ip = endpoint.ip();
    dev.routesync.api.v1.Endpoint.Builder builder =
        dev.routesync.api.v1.Endpoint.newBuilder()
            .setSelected(selected)
            .setIp(ip)
            .addAddresses(ip)
            .addAllAddresses(endpoint.additionalAddresses())
            .setZone(orEmpty(endpoint.zone()))
            .setNode(orEmpty(endpoint.node()))
            .setPod(orEmpty(endpoint.pod()))
            .setReady(endpoint.ready())
            .setServing(endpoint.serving())
            .setTerminating(endpoint.terminating());
    EndpointHints hints = endpoint.hints();
    if (!hints.isEmpty()) {
      builder.setHints(
          dev.routesync.api.v1.EndpointHints.newBuilder()
              .addAllForZones(hints.forZones())
              .addAllForNodes(hints.forNodes()));
    }
    for (Port port : endpoint.ports()) {
      builder.addPorts(
          dev.routesync.api.v1.Port.newBuilder()
              .setName(port.name())
              .setPort(port.port())
              .setProtocol(port.protocol()));
    }
    return builder.build();
  }

  static ServiceRef ref(ServiceKey key) {
    return ServiceRef.newBuilder().setNamespace(key.namespace()).setName(key.name()).build();
  }

  private static String orEmpty(String text) {
    return text == null ? "" : text;
  }
}
