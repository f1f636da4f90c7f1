package dev.routesync.serve;

import dev.routesync.api.v1.RegistryGrpcService;
import dev.routesync.api.v1.ResolveRequest;
import dev.routesync.api.v1.ServiceEndpoints;
import dev.routesync.table.TableTrust;
import dev.routesync.table.TableView;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.grpc.common.GrpcMessageDecoder;
import io.vertx.grpc.common.GrpcMessageEncoder;
import io.vertx.grpc.common.ServiceMethod;
import io.vertx.grpc.server.GrpcServer;
import io.vertx.grpc.server.GrpcServerRequest;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Benchmarks only: the agent's serving stack on a Unix socket, built as {@link ApiServer} builds
 * it, plus one extra unary method, {@code routesync.v1.Registry/Noop}, that answers an empty {@code
 * ServiceEndpoints} once the request has ended. Noop takes the same {@code ResolveRequest} as
 * {@code Resolve} and goes through the same socket, HTTP/2 settings, content-type dispatch and
 * {@link GrpcServer} (same options, same services: the real {@link RegistryGrpc}, health and
 * reflection), so the difference between the two is only what Resolve itself does.
 *
 * <p>It lives in {@code dev.routesync.serve} to reach {@link ApiServer}'s package-private
 * constructor that binds extra methods: the stack measured is exactly the agent's.
 */
public final class FloorServer {

  /** The no-op method: same request type as Resolve, empty answer, no lookup. */
  public static final ServiceMethod<ResolveRequest, ServiceEndpoints> NOOP =
      ServiceMethod.server(
          RegistryGrpcService.SERVICE_NAME,
          "Noop",
          GrpcMessageEncoder.encoder(),
          GrpcMessageDecoder.decoder(ResolveRequest.newBuilder()));

  private final ApiServer server;

  public FloorServer(Vertx vertx, TableView table, ServeObserver observer, Path socketPath) {
    Readiness readiness = new Readiness();
    readiness.socketListening(true);
    readiness.initialSyncDone();
    // The agent's own serving stack, plus the no-op method.
    server =
        new ApiServer(
            vertx,
            table,
            TableTrust.synced(),
            observer,
            readiness,
            socketPath,
            Optional.empty(),
            true,
            grpc -> grpc.callHandler(NOOP, FloorServer::noop));
  }

  // Like RegistryGrpc.resolve: answer only after the request has ended.
  private static void noop(GrpcServerRequest<ResolveRequest, ServiceEndpoints> call) {
    call.last().onSuccess(request -> call.response().end(ServiceEndpoints.getDefaultInstance()));
  }

  public Future<Void> listen() {
    return server.listen();
  }

  public Path socketPath() {
    return server.socketPath();
  }

  public Future<Void> close() {
    return server.shutdown(java.time.Duration.ZERO);
  }
}
