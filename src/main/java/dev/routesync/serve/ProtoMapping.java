package dev.routesync.serve;

import dev.routesync.api.v1.ServiceRef;
import dev.routesync.table.Endpoint;
import dev.routesync.table.Port;
import dev.routesync.table.ServiceEndpoints;
import dev.routesync.table.ServiceKey;

/** Table records to their protobuf messages; the gRPC twin of {@link TableJson}. */
final class ProtoMapping {

  private ProtoMapping() {}

  static dev.routesync.api.v1.ServiceEndpoints service(ServiceEndpoints service) {
    dev.routesync.api.v1.ServiceEndpoints.Builder builder =
        dev.routesync.api.v1.ServiceEndpoints.newBuilder()
            .setNamespace(service.key().namespace())
            .setName(service.key().name())
            .setVersion(service.version());
    for (Endpoint endpoint : service.endpoints()) {
      builder.addEndpoints(endpoint(endpoint));
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
