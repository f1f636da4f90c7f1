package dev.routesync.serve;

import dev.routesync.api.v1.ListResponse;
import dev.routesync.api.v1.ServiceRef;
import dev.routesync.table.Endpoint;
import dev.routesync.table.Port;
import dev.routesync.table.PortCount;
import dev.routesync.table.ServiceEndpoints;
import dev.routesync.table.ServiceKey;
import java.util.Collection;

/**
 * Table records to their protobuf messages: what gRPC sends, and, printed by {@link
 * dev.routesync.api.ApiJson}, what the HTTP API serves.
 */
final class ProtoMapping {

  private ProtoMapping() {}

  /** The answer to List and to {@code GET /v1/services}. */
  static ListResponse list(long tableVersion, Collection<ServiceEndpoints> services) {
    ListResponse.Builder builder = ListResponse.newBuilder().setVersion(tableVersion);
    for (ServiceEndpoints service : services) {
      builder.addServices(service(service));
    }
    return builder.build();
  }

  static dev.routesync.api.v1.ServiceEndpoints service(ServiceEndpoints service) {
    dev.routesync.api.v1.ServiceEndpoints.Builder builder =
        dev.routesync.api.v1.ServiceEndpoints.newBuilder()
            .setNamespace(service.key().namespace())
            .setName(service.key().name())
            .setVersion(service.version());
    for (Endpoint endpoint : service.endpoints()) {
      builder.addEndpoints(endpoint(endpoint));
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

  static dev.routesync.api.v1.Endpoint endpoint(Endpoint endpoint) {
    dev.routesync.api.v1.Endpoint.Builder builder =
        dev.routesync.api.v1.Endpoint.newBuilder()
            .setIp(endpoint.ip())
            .setZone(orEmpty(endpoint.zone()))
            .setNode(orEmpty(endpoint.node()))
            .setPod(orEmpty(endpoint.pod()))
            .setReady(endpoint.ready())
            .setServing(endpoint.serving())
            .setTerminating(endpoint.terminating());
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
