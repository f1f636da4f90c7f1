package dev.routesync.bench;

import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.MethodDescriptorProto;
import com.google.protobuf.DescriptorProtos.ServiceDescriptorProto;
import com.google.protobuf.Descriptors;
import dev.routesync.api.v1.ResolveRequest;
import dev.routesync.api.v1.ServiceEndpoints;
import dev.routesync.serve.ApiServer;
import dev.routesync.serve.ApiServerOptions;
import dev.routesync.serve.Readiness;
import dev.routesync.serve.ServeObserver;
import dev.routesync.table.Freshness;
import dev.routesync.table.TableTrust;
import dev.routesync.table.TableView;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.grpc.common.GrpcMessageDecoder;
import io.vertx.grpc.common.GrpcMessageEncoder;
import io.vertx.grpc.common.ServiceMethod;
import io.vertx.grpc.common.ServiceName;
import io.vertx.grpc.server.GrpcServerRequest;
import io.vertx.grpc.server.Service;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The agent's serving stack on a Unix socket, the {@link ApiServer} itself, plus one extra unary
 * method, {@code routesync.bench.Floor/Noop}, that answers an empty {@code ServiceEndpoints} once
 * the request has ended. Noop takes the same {@code ResolveRequest} as {@code Resolve} and goes
 * through the same socket, HTTP/2 settings, content-type dispatch and gRPC server (same options,
 * same services: the real registry, health and reflection), so the difference between the two is
 * only what Resolve itself does. It is added through {@link ApiServer}'s public {@code
 * extraServices} option, under its own service name (a gRPC server holds one service per name).
 */
final class FloorServer {

  static final String SERVICE = "routesync.bench.Floor";

  /** The no-op method: same request type as Resolve, empty answer, no lookup. */
  static final ServiceMethod<ResolveRequest, ServiceEndpoints> NOOP =
      ServiceMethod.server(
          ServiceName.create(SERVICE),
          "Noop",
          GrpcMessageEncoder.encoder(),
          GrpcMessageDecoder.decoder(ResolveRequest.newBuilder()));

  private final ApiServer server;

  FloorServer(Vertx vertx, TableView table, ServeObserver observer, Path socketPath) {
    Readiness readiness = new Readiness();
    readiness.socketListening(true);
    readiness.initialSyncDone();
    Service floor =
        Service.service(NOOP.serviceName(), descriptor()).bind(NOOP, FloorServer::noop).build();
    server =
        new ApiServer(
            vertx,
            table,
            Freshness.unwatched(TableTrust.synced()),
            observer,
            readiness,
            ApiServerOptions.onSocket(socketPath).withExtraServices(List.of(floor)));
  }

  // Like the registry's Resolve: answer only after the request has ended.
  private static void noop(GrpcServerRequest<ResolveRequest, ServiceEndpoints> call) {
    call.last().onSuccess(request -> call.response().end(ServiceEndpoints.getDefaultInstance()));
  }

  /**
   * {@code service Floor { rpc Noop(ResolveRequest) returns (ServiceEndpoints); }}, for reflection.
   */
  private static Descriptors.ServiceDescriptor descriptor() {
    Descriptors.FileDescriptor registry = ResolveRequest.getDescriptor().getFile();
    FileDescriptorProto file =
        FileDescriptorProto.newBuilder()
            .setName("routesync/bench/floor.proto")
            .setPackage("routesync.bench")
            .setSyntax("proto3")
            .addDependency(registry.getName())
            .addService(
                ServiceDescriptorProto.newBuilder()
                    .setName("Floor")
                    .addMethod(
                        MethodDescriptorProto.newBuilder()
                            .setName("Noop")
                            .setInputType("." + ResolveRequest.getDescriptor().getFullName())
                            .setOutputType("." + ServiceEndpoints.getDescriptor().getFullName())))
            .build();
    try {
      return Descriptors.FileDescriptor.buildFrom(file, new Descriptors.FileDescriptor[] {registry})
          .findServiceByName("Floor");
    } catch (Descriptors.DescriptorValidationException e) {
      throw new IllegalStateException("floor descriptor", e);
    }
  }

  Future<Void> listen() {
    return server.listen();
  }

  Path socketPath() {
    return server.socketPath();
  }

  Future<Void> close() {
    return server.shutdown(Duration.ZERO);
  }
}
