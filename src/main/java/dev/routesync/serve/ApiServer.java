package dev.routesync.serve;

import dev.routesync.table.RoutingTable;
import dev.routesync.table.TableTrust;
import dev.routesync.table.TableView;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.Http2Settings;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.Router;
import io.vertx.grpc.health.HealthService;
import io.vertx.grpc.reflection.ReflectionService;
import io.vertx.grpc.server.GrpcServer;
import io.vertx.grpc.server.GrpcServerOptions;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * What sidecars connect to: gRPC ({@code routesync.v1.Registry}, health, reflection) and the
 * HTTP/JSON API on one listener, told apart by content type; on the Unix socket, and optionally on
 * a loopback TCP port with the same handler.
 */
public final class ApiServer {

  /** Largest request message accepted; requests are a few names, so anything big is abuse. */
  public static final int MAX_REQUEST_BYTES = 64 * 1024;

  /** HTTP/2 streams one connection may have open (each Watch holds one). */
  public static final int MAX_CONCURRENT_STREAMS = 1024;

  /** The service name health reports on (the blank name is always SERVING in Vert.x). */
  public static final String HEALTH_SERVICE = "routesync.v1.Registry";

  private final Vertx vertx;
  private final WatchHub hub;
  private final SocketServer socket;
  private final Optional<InetSocketAddress> tcpAddress;
  private final HttpServerOptions options;
  private final io.vertx.core.Handler<HttpServerRequest> handler;
  private HttpServer tcp;

  public ApiServer(
      Vertx vertx,
      TableView table,
      TableTrust trust,
      ServeObserver observer,
      Readiness readiness,
      Path socketPath,
      Optional<InetSocketAddress> tcpAddress,
      boolean reflection) {
    this(vertx, table, trust, observer, readiness, socketPath, tcpAddress, reflection, grpc -> {});
  }

  /**
   * As the public constructor, with {@code extraBindings} applied to the gRPC server last: for the
   * serving benchmark's no-op method, so it measures this exact stack.
   */
  ApiServer(
      Vertx vertx,
      TableView table,
      TableTrust trust,
      ServeObserver observer,
      Readiness readiness,
      Path socketPath,
      Optional<InetSocketAddress> tcpAddress,
      boolean reflection,
      java.util.function.Consumer<GrpcServer> extraBindings) {
    this.vertx = vertx;
    this.tcpAddress = tcpAddress;
    this.hub = new WatchHub(observer);
    // Watch streams opened before the table was trusted wait for this to send their first message.
    trust.onRaise(hub::wakeAll);
    GrpcServer grpc =
        GrpcServer.server(
            vertx,
            new GrpcServerOptions()
                .setMaxMessageSize(MAX_REQUEST_BYTES)
                .setScheduleDeadlineAutomatically(true));
    grpc.addService(new RegistryGrpc(table, trust, hub, observer));
    grpc.addService(
        HealthService.create(vertx)
            .register(HEALTH_SERVICE, () -> Future.succeededFuture(readiness.isReady())));
    if (reflection) {
      grpc.addService(ReflectionService.v1());
      grpc.addService(new ReflectionV1alpha()); // older grpcurl builds ask for v1alpha
    }
    extraBindings.accept(grpc);
    Router router = new HttpApi(table, trust).router(vertx);
    this.handler =
        request -> {
          String type = request.getHeader("content-type");
          if (type != null && type.startsWith("application/grpc")) {
            RequestEncoding.markUnencoded(request);
            grpc.handle(request);
          } else {
            router.handle(request);
          }
        };
    this.options =
        new HttpServerOptions()
            .setInitialSettings(
                new Http2Settings().setMaxConcurrentStreams(MAX_CONCURRENT_STREAMS));
    this.socket = new SocketServer(vertx, socketPath, handler, options, this::onConnection);
  }

  // GOAWAY does not end open server streams: end each Watch cleanly when its connection starts
  // shutting down. The hook runs before the GOAWAY is written, so defer one event-loop turn:
  // clients then see GOAWAY first and a clean OK after, and reconnect to the next agent.
  private void onConnection(HttpConnection connection) {
    Context context = Vertx.currentContext();
    connection.shutdownHandler(
        ignored -> context.runOnContext(turn -> hub.endStreamsOf(connection)));
  }

  /** Wakes Watch streams for a newly published version. Register as a table listener. */
  public void published(RoutingTable table) {
    hub.published(table);
  }

  public Future<Void> listen() {
    Future<Void> onSocket = socket.listen();
    if (tcpAddress.isEmpty()) {
      return onSocket;
    }
    tcp =
        vertx
            .createHttpServer(options)
            .requestHandler(handler)
            .connectionHandler(this::onConnection);
    InetSocketAddress address = tcpAddress.get();
    String host = address.getAddress().getHostAddress();
    Future<Void> onTcp =
        tcp.listen(address.getPort(), host)
            .<Void>mapEmpty()
            .recover(
                error ->
                    Future.failedFuture(
                        ListenFailures.of(
                            "tcp", ListenFailures.hostPort(host, address.getPort()), error)));
    return Future.all(onSocket, onTcp).mapEmpty();
  }

  public Path socketPath() {
    return socket.path();
  }

  /** Empty while the socket file is the one this server created; otherwise why not. */
  public String socketFileProblem() {
    return socket.fileProblem();
  }

  /** The loopback TCP port, or -1 when not listening on TCP. */
  public int tcpPort() {
    return tcp == null ? -1 : tcp.actualPort();
  }

  public int watchStreams() {
    return hub.size();
  }

  /**
   * Graceful: GOAWAY, Watch streams end with OK, in-flight calls finish, within {@code timeout}.
   */
  public Future<Void> shutdown(Duration timeout) {
    Future<Void> onTcp =
        tcp == null
            ? Future.succeededFuture()
            : tcp.shutdown(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    return Future.join(socket.shutdown(timeout), onTcp).mapEmpty();
  }
}
