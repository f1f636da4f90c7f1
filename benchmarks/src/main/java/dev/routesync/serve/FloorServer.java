package dev.routesync.serve;

import dev.routesync.api.v1.RegistryGrpcService;
import dev.routesync.api.v1.ResolveRequest;
import dev.routesync.api.v1.ServiceEndpoints;
import dev.routesync.observe.Metrics;
import dev.routesync.observe.Readiness;
import dev.routesync.table.TableView;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.Http2Settings;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.Router;
import io.vertx.grpc.common.GrpcMessageDecoder;
import io.vertx.grpc.common.GrpcMessageEncoder;
import io.vertx.grpc.common.ServiceMethod;
import io.vertx.grpc.health.HealthService;
import io.vertx.grpc.reflection.ReflectionService;
import io.vertx.grpc.server.GrpcServer;
import io.vertx.grpc.server.GrpcServerOptions;
import io.vertx.grpc.server.GrpcServerRequest;
import java.nio.file.Path;

/**
 * Benchmarks only: the agent's serving stack on a Unix socket, built as {@link ApiServer} builds
 * it, plus one extra unary method, {@code routesync.v1.Registry/Noop}, that answers an empty {@code
 * ServiceEndpoints} once the request has ended. Noop takes the same {@code ResolveRequest} as
 * {@code Resolve} and goes through the same socket, HTTP/2 settings, content-type dispatch and
 * {@link GrpcServer} (same options, same services: the real {@link RegistryGrpc}, health and
 * reflection), so the difference between the two is only what Resolve itself does.
 *
 * <p>It lives in {@code dev.routesync.serve} because {@link RegistryGrpc} is package-private and
 * {@link ApiServer} cannot take an extra method. Keep it in step with {@link ApiServer}'s
 * constructor.
 */
public final class FloorServer {

  /** The no-op method: same request type as Resolve, empty answer, no lookup. */
  public static final ServiceMethod<ResolveRequest, ServiceEndpoints> NOOP =
      ServiceMethod.server(
          RegistryGrpcService.SERVICE_NAME,
          "Noop",
          GrpcMessageEncoder.encoder(),
          GrpcMessageDecoder.decoder(ResolveRequest.newBuilder()));

  private final SocketServer socket;

  public FloorServer(Vertx vertx, TableView table, Metrics metrics, Path socketPath) {
    Readiness readiness = new Readiness();
    readiness.socketListening(true);
    readiness.initialSyncDone();
    // As ApiServer, plus the no-op method.
    GrpcServer grpc =
        GrpcServer.server(
            vertx,
            new GrpcServerOptions()
                .setMaxMessageSize(ApiServer.MAX_REQUEST_BYTES)
                .setScheduleDeadlineAutomatically(true));
    grpc.addService(new RegistryGrpc(table, new WatchHub(metrics), metrics));
    grpc.addService(
        HealthService.create(vertx)
            .register(ApiServer.HEALTH_SERVICE, () -> Future.succeededFuture(readiness.isReady())));
    grpc.addService(ReflectionService.v1());
    grpc.callHandler(NOOP, FloorServer::noop);
    Router router = new HttpApi(table).router(vertx);
    Handler<HttpServerRequest> handler =
        request -> {
          String type = request.getHeader("content-type");
          if (type != null && type.startsWith("application/grpc")) {
            grpc.handle(request);
          } else {
            router.handle(request);
          }
        };
    HttpServerOptions options =
        new HttpServerOptions()
            .setInitialSettings(
                new Http2Settings().setMaxConcurrentStreams(ApiServer.MAX_CONCURRENT_STREAMS));
    this.socket = new SocketServer(vertx, socketPath, handler, options, connection -> {});
  }

  // Like RegistryGrpc.resolve: answer only after the request has ended.
  private static void noop(GrpcServerRequest<ResolveRequest, ServiceEndpoints> call) {
    call.last().onSuccess(request -> call.response().end(ServiceEndpoints.getDefaultInstance()));
  }

  public Future<Void> listen() {
    return socket.listen();
  }

  public Path socketPath() {
    return socket.path();
  }

  public Future<Void> close() {
    return socket.close();
  }
}
