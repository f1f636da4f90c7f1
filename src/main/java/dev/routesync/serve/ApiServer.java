package dev.routesync.serve;

import dev.routesync.drift.DriftView;
import dev.routesync.sidecars.Protocol;
import dev.routesync.sidecars.Sidecars;
import dev.routesync.startup.BadConfigurationException;
import dev.routesync.streams.StreamHub;
import dev.routesync.table.Freshness;
import dev.routesync.table.RoutingTable;
import dev.routesync.table.TableTrust;
import dev.routesync.table.TableView;
import dev.routesync.xds.XdsServer;
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
import io.vertx.grpc.server.Service;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What sidecars connect to: gRPC ({@code routesync.v1.Registry}, health, reflection) and the
 * HTTP/JSON API on one listener, told apart by content type; on the Unix socket, and optionally on
 * a loopback TCP port with the same handler.
 */
public final class ApiServer {

  private static final Logger LOG = LoggerFactory.getLogger(ApiServer.class);

  /** Largest request message accepted; requests are a few names, so anything big is abuse. */
  public static final int MAX_REQUEST_BYTES = 64 * 1024;

  /** HTTP/2 streams one connection may have open (each Watch holds one). */
  public static final int MAX_CONCURRENT_STREAMS = 1024;

  /** The service name health reports on (the blank name is always SERVING in Vert.x). */
  public static final String HEALTH_SERVICE = "routesync.v1.Registry";

  /**
   * How often staleness is looked at for Watch streams: it can flip with no version published (an
   * outage passing --relist-after, a reconnect), and streams then get a message saying so.
   */
  static final Duration STALE_CHECK = Duration.ofMillis(500);

  private final Vertx vertx;
  private final StreamHub<HttpConnection, WatchStream> hub;
  private final ServiceEncodings encodings;
  private final SocketServer socket;
  private final Optional<InetSocketAddress> tcpAddress;
  private final HttpServerOptions httpOptions;
  private final io.vertx.core.Handler<HttpServerRequest> handler;
  private final ConnectionGuards guards;
  private final ConnectionGuard socketGuard;
  private final ConnectionGuard tcpGuard;
  private final HttpApi httpApi;
  private final StaleSignal staleSignal;
  private final StreamShare streams;
  private static final List<String> WATCH_TYPES = List.of("services");
  private long staleCheck = -1;
  private HttpServer tcp;
  // Set before listen(), read on event loops: the listener start publishes it to them.
  private volatile XdsServer xds;

  /**
   * Serves {@code table} as {@code options} say, telling clients how fresh it is from {@code
   * freshness} (the agent's, fed by its watches; {@link Freshness#unwatched} where nothing
   * watches), whose trust decides what is served.
   */
  public ApiServer(
      Vertx vertx,
      TableView table,
      Freshness freshness,
      ServeObserver observer,
      Readiness readiness,
      ApiServerOptions options) {
    this(vertx, table, freshness, observer, readiness, options, new EncodedServices());
  }

  /**
   * As above, with the Watch streams' Service encodings given: the fan-out benchmark supplies
   * per-stream encoding to measure its baseline against the shared {@link EncodedServices}.
   */
  ApiServer(
      Vertx vertx,
      TableView table,
      Freshness freshness,
      ServeObserver observer,
      Readiness readiness,
      ApiServerOptions options,
      ServiceEncodings encodings) {
    Optional<InetSocketAddress> tcpAddress = options.tcpAddress();
    ConnectionGuards guards = options.guards();
    ConnectionLimits limits = options.limits();
    TableTrust trust = freshness.trust();
    this.vertx = vertx;
    this.tcpAddress = tcpAddress;
    this.guards = guards;
    this.streams = new StreamShare(limits.maxStreams());
    this.socketGuard =
        guards.enabled()
            ? ConnectionGuard.socket(
                limits,
                observer,
                new PeerGate(guards.peers(), new PeerRefusalLog(System::nanoTime)),
                guards.credentials(),
                streams)
            : null;
    this.tcpGuard =
        guards.enabled() && tcpAddress.isPresent() ? ConnectionGuard.tcp(limits, observer) : null;
    this.hub = new StreamHub<>(WatchDrain::endOnceFlushed, observer::watchSubscribers);
    this.encodings = encodings;
    this.staleSignal = new StaleSignal(freshness, hub::wakeAll);
    // Watch streams opened before the table was trusted wait for this to send their first message;
    // a rise to SYNCED may also end staleness.
    trust.onRaise(hub::wakeAll);
    trust.onRaise(staleSignal::refresh);
    GrpcServer grpc =
        GrpcServer.server(
            vertx,
            new GrpcServerOptions()
                .setMaxMessageSize(MAX_REQUEST_BYTES)
                .setScheduleDeadlineAutomatically(true));
    grpc.addService(
        new RegistryGrpc(
            table,
            trust,
            freshness,
            staleSignal,
            hub,
            WatchSupply.of(encodings),
            observer,
            connection ->
                sidecars().open(Protocol.WATCH, ConnectionPeers.idsOf(connection), WATCH_TYPES)));
    grpc.addService(
        HealthService.create(vertx)
            .register(HEALTH_SERVICE, () -> Future.succeededFuture(readiness.isReady())));
    if (options.reflection()) {
      grpc.addService(ReflectionService.v1());
      grpc.addService(new ReflectionV1alpha()); // older grpcurl builds ask for v1alpha
    }
    for (Service extra : options.extraServices()) {
      addExtra(grpc, extra);
    }
    this.httpApi = new HttpApi(table, trust, freshness);
    Router router = httpApi.router(vertx);
    BodyDeadline bodyDeadline = new BodyDeadline(vertx, limits.bodyTimeout(), observer);
    this.handler =
        request -> {
          String type = request.getHeader("content-type");
          boolean grpcRequest = type != null && type.startsWith("application/grpc");
          if (overStreamShare(request, grpcRequest, observer)) {
            return;
          }
          bodyDeadline.arm(request, grpcRequest);
          if (grpcRequest) {
            RequestEncoding.markUnencoded(request);
            XdsServer ads = xds;
            if (ads != null && XdsServer.handles(request)) {
              ads.handle(request);
            } else {
              grpc.handle(request);
            }
          } else {
            router.handle(request);
          }
        };
    this.httpOptions =
        new HttpServerOptions()
            .setInitialSettings(
                new Http2Settings().setMaxConcurrentStreams(MAX_CONCURRENT_STREAMS));
    this.socket =
        new SocketServer(vertx, options.socketPath(), handler, httpOptions, this::onConnection);
  }

  /**
   * Whether {@code request}, an HTTP/2 stream on the socket, is over its uid's share of {@code
   * --max-streams}: if so it has been answered (RESOURCE_EXHAUSTED, HTTP 429) and reset.
   */
  private boolean overStreamShare(
      HttpServerRequest request, boolean grpcRequest, ServeObserver observer) {
    if (request.version() != io.vertx.core.http.HttpVersion.HTTP_2) {
      return false;
    }
    Long uid = StreamShare.uidOf(request.connection());
    if (uid == null) {
      return false;
    }
    SocketRefusal refusal = streams.refusal(uid);
    if (refusal == null) {
      return false;
    }
    observer.socketRefused(uid, refusal);
    EarlyAnswer.end(
        request,
        grpcRequest,
        io.vertx.grpc.common.GrpcStatus.RESOURCE_EXHAUSTED,
        429,
        refusal == SocketRefusal.STREAM_SHARE
            ? "uid "
                + uid
                + " holds its share of the socket's calls (--max-streams "
                + streams.maxStreams()
                + ")"
            : "the socket has --max-streams " + streams.maxStreams() + " calls open");
    return true;
  }

  // Vert.x would reject a clash too, but only as "Duplicated name: Registry".
  private static void addExtra(GrpcServer grpc, Service extra) {
    String name = extra.name().fullyQualifiedName();
    for (Service served : grpc.services()) {
      if (served.name().fullyQualifiedName().equals(name)) {
        throw new IllegalArgumentException(
            "extra gRPC service " + name + " clashes with a service the agent already serves");
      }
    }
    grpc.addService(extra);
  }

  // GOAWAY does not end open server streams: end each Watch cleanly when its connection starts
  // shutting down. The hook runs before the GOAWAY is written, so defer one event-loop turn:
  // clients then see GOAWAY first and a clean OK after, and reconnect to the next agent.
  private void onConnection(HttpConnection connection) {
    Context context = Vertx.currentContext();
    connection.shutdownHandler(
        ignored ->
            context.runOnContext(
                turn -> {
                  hub.endStreamsOf(connection);
                  XdsServer ads = xds;
                  if (ads != null) {
                    ads.endStreamsOf(connection);
                  }
                }));
    // One close handler per connection (a second would replace the first), for every kind of
    // stream it may carry.
    connection.closeHandler(
        ignored -> {
          hub.dropStreamsOf(connection);
          XdsServer ads = xds;
          if (ads != null) {
            ads.dropStreamsOf(connection);
          }
        });
  }

  /** Wakes Watch (and ADS) streams for a newly published version. Register as a table listener. */
  public void published(RoutingTable table) {
    staleSignal.refresh();
    encodings.published(table); // before the streams look at the new version
    hub.wakeAll();
    XdsServer ads = xds;
    if (ads != null) {
      ads.published(table);
    }
  }

  /**
   * Also serves xDS (ADS, {@code envoy.service.discovery.v3.AggregatedDiscoveryService}) on the
   * same listeners, with its own gRPC options. Call before {@link #listen}.
   */
  public void serveXds(XdsServer server) {
    server.identifyPeersBy(ConnectionPeers::of);
    server.trackClients(sidecars(), ConnectionPeers::idsOf);
    this.xds = server;
  }

  /**
   * Lists the Watch and ADS streams' sync states in {@code registry} ({@code GET /v1/clients},
   * {@code /v1/latency}) instead of a registry of this server's own. Call before {@link #serveXds}
   * and {@link #listen}.
   */
  public void trackClientsIn(Sidecars registry) {
    httpApi.serveClients(registry);
  }

  /** Where the streams' sync states are listed. */
  public Sidecars sidecars() {
    return httpApi.sidecars();
  }

  /** Serves the drift detector's snapshot at {@code GET /v1/drift}; any time, any thread. */
  public void serveDrift(DriftView view) {
    httpApi.serveDrift(view);
  }

  public Future<Void> listen() {
    staleCheck = vertx.setPeriodic(STALE_CHECK.toMillis(), id -> staleSignal.refresh());
    if (socketGuard != null) {
      String unenforceable = unenforceablePeerPolicy();
      if (unenforceable != null) {
        return Future.failedFuture(new BadConfigurationException(unenforceable));
      }
      if (!guards.readsPeerCredentials()) {
        LOG.info(
            "peer credentials (SO_PEERCRED) cannot be read on the {} transport: socket"
                + " connections are counted as uid \"unknown\"",
            guards.transportName());
      }
      guards.registerUnix(socketGuard);
    }
    Future<Void> onSocket = socket.listen();
    Future<Void> listening;
    if (tcpAddress.isEmpty()) {
      listening = onSocket;
    } else {
      tcp =
          vertx
              .createHttpServer(httpOptions)
              .requestHandler(handler)
              .invalidRequestHandler(Errors::invalidRequest)
              .connectionHandler(this::onConnection);
      InetSocketAddress address = tcpAddress.get();
      String host = address.getAddress().getHostAddress();
      if (tcpGuard != null) {
        guards.registerTcp(address.getPort(), tcpGuard);
      }
      Future<Void> onTcp =
          tcp.listen(address.getPort(), host)
              .<Void>map(
                  bound -> {
                    if (tcpGuard != null) {
                      guards.registerTcp(bound.actualPort(), tcpGuard); // port 0: known now
                    }
                    return null;
                  })
              .recover(
                  error ->
                      Future.failedFuture(
                          ListenFailures.of(
                              "tcp", ListenFailures.hostPort(host, address.getPort()), error)));
      listening = Future.all(onSocket, onTcp).mapEmpty();
    }
    return listening.compose(
        ignored ->
            socketGuard == null || guards.installed()
                ? Future.succeededFuture()
                : Future.failedFuture(
                    new IllegalStateException(
                        "connection limits need a Vert.x built with ConnectionGuards.transport()")));
  }

  /**
   * Why {@code --allow-uids}/{@code --allow-gids} cannot be enforced here, or null when they can
   * (or do not restrict): a restriction that silently did nothing would be worse than none, so the
   * agent refuses to start (exit 2) instead.
   */
  private String unenforceablePeerPolicy() {
    PeerPolicy peers = guards.peers();
    if (!peers.restricts()) {
      return null;
    }
    String flags = "--allow-uids/--allow-gids (" + peers.describe() + ")";
    if (!guards.readsPeerCredentials()) {
      return flags
          + " cannot be enforced: the "
          + guards.transportName()
          + " transport cannot read peer credentials (SO_PEERCRED needs the native epoll"
          + " transport, which is not available here)";
    }
    if (tcpAddress.isPresent()) {
      return flags
          + " cannot be enforced on --listen-tcp: a TCP connection carries no peer credentials;"
          + " drop --listen-tcp or the restriction";
    }
    return null;
  }

  /** The read API ({@code /v1/...}) this server answers on the socket, for the debug listener. */
  public HttpApi httpApi() {
    return httpApi;
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

  /** The Watch streams' Service encodings: a seam for tests and the fan-out benchmark. */
  ServiceEncodings watchEncodings() {
    return encodings;
  }

  /**
   * Graceful: GOAWAY, Watch streams end with OK, in-flight calls finish, within {@code timeout}.
   */
  public Future<Void> shutdown(Duration timeout) {
    if (staleCheck >= 0) {
      vertx.cancelTimer(staleCheck);
    }
    Future<Void> onTcp =
        tcp == null
            ? Future.succeededFuture()
            : tcp.shutdown(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    Future<Void> onSocket = socket.shutdown(timeout);
    // Connections with nothing in flight (half-sent requests, idle ones) close at once instead of
    // holding the drain to its timeout.
    for (ConnectionGuard guard : new ConnectionGuard[] {socketGuard, tcpGuard}) {
      if (guard != null) {
        guard.drain();
      }
    }
    return Future.join(onSocket, onTcp).mapEmpty();
  }
}
