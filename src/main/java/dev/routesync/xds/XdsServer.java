package dev.routesync.xds;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.routesync.sidecars.PeerIds;
import dev.routesync.sidecars.Protocol;
import dev.routesync.sidecars.Sidecars;
import dev.routesync.sidecars.SyncState;
import dev.routesync.streams.StreamHub;
import dev.routesync.table.RoutingTable;
import dev.routesync.table.TableTrust;
import dev.routesync.table.TableView;
import io.envoyproxy.envoy.service.discovery.v3.DeltaDiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DeltaDiscoveryResponse;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryResponse;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.grpc.server.GrpcServer;
import io.vertx.grpc.server.GrpcServerOptions;
import java.util.function.Function;

/**
 * The ADS server: a gRPC server of its own, which the API server hands the requests for {@code
 * AggregatedDiscoveryService} to. Its own because its calls differ from the Registry's: Envoy's
 * state-of-the-world requests list every name it follows (so up to {@link #MAX_REQUEST_BYTES}), and
 * its streams live as long as the connection (so no automatic deadline).
 */
public final class XdsServer {

  /** Largest request accepted: a full subscription of tens of thousands of names fits. */
  public static final int MAX_REQUEST_BYTES = 4 * 1024 * 1024;

  private static final String PATH_PREFIX = "/" + AdsService.NAME.fullyQualifiedName() + "/";

  private final StreamHub<HttpConnection, AdsStream> hub = new StreamHub<>(AdsDrain::endNextTurn);
  private final AssignmentCache assignments = new AssignmentCache();
  private final GrpcServer grpc;
  private volatile Function<HttpConnection, Object> peerOf = connection -> connection;
  // Set before listening: where each stream's sync state is listed, and who opened it.
  private volatile Sidecars sidecars;
  private volatile Function<HttpConnection, PeerIds> idsOf = connection -> PeerIds.UNKNOWN;

  /** With the limits of this JVM's heap ({@link XdsLimits#ofThisHeap}). */
  public XdsServer(Vertx vertx, TableView table, TableTrust trust, XdsObserver observer) {
    this(vertx, table, trust, observer, XdsLimits.ofThisHeap());
  }

  public XdsServer(
      Vertx vertx, TableView table, TableTrust trust, XdsObserver observer, XdsLimits limits) {
    XdsSources sources =
        new XdsSources(table, trust, assignments, new WildcardClusters(), new PeerBudgets(limits));
    this.grpc =
        GrpcServer.server(
            vertx,
            new GrpcServerOptions()
                .setMaxMessageSize(MAX_REQUEST_BYTES)
                .setScheduleDeadlineAutomatically(false));
    grpc.addService(
        new AdsService(
            sources,
            hub,
            observer,
            new NackLog(System::nanoTime),
            connection -> peerOf.apply(connection),
            this::track));
    // Streams opened before the first sync wait for this to send anything.
    trust.onRaise(hub::wakeAll);
    warmUp();
  }

  // The Envoy API's descriptors and classes load on first use: most of a second of CPU on a busy
  // node, which would otherwise hold the event loop of the first client's request (and whatever
  // else that loop serves, /healthz included). Done once, at start.
  private static void warmUp() {
    String name = "warm.up:80";
    XdsResources.listener(name).toByteString();
    XdsResources.cluster(name).toByteString();
    AssignmentCache.noSuchService(name).toByteString();
    try {
      DiscoveryRequest.parseFrom(
          DiscoveryRequest.newBuilder().addResourceNames(name).build().toByteArray());
      DeltaDiscoveryRequest.parseFrom(
          DeltaDiscoveryRequest.newBuilder().addResourceNamesSubscribe(name).build().toByteArray());
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException(e);
    }
    DiscoveryResponse.getDefaultInstance();
    DeltaDiscoveryResponse.getDefaultInstance();
  }

  /**
   * Says who is at the other end of a connection (its uid on the Unix socket), so the per-peer
   * limits hold however many connections one peer opens. Two connections are one peer when their
   * values are equal. Until this is called, each connection is a peer of its own.
   */
  public void identifyPeersBy(Function<HttpConnection, Object> peerOf) {
    this.peerOf = peerOf;
  }

  /**
   * Lists each stream's sync state in {@code registry} ({@code GET /v1/clients}), its peer told by
   * {@code ids}. Call before listening; until then streams are not listed.
   */
  public void trackClients(Sidecars registry, Function<HttpConnection, PeerIds> ids) {
    this.idsOf = ids;
    this.sidecars = registry;
  }

  private SyncState track(HttpConnection connection, Protocol protocol) {
    Sidecars registry = sidecars;
    return registry == null
        ? null
        : registry.open(protocol, idsOf.apply(connection), AbstractAdsStream.TYPES);
  }

  /** Whether {@code request} is an ADS call (a gRPC request to its service's path). */
  public static boolean handles(HttpServerRequest request) {
    return request.path().startsWith(PATH_PREFIX);
  }

  /** Serves an ADS call; {@link #handles} said yes. */
  public void handle(HttpServerRequest request) {
    grpc.handle(request);
  }

  /** A new table version: drop what it removed from the cache, wake every stream. */
  public void published(RoutingTable table) {
    assignments.published(table);
    hub.wakeAll();
  }

  /** Ends the streams of a connection that is shutting down (GOAWAY sent), with OK. */
  public void endStreamsOf(HttpConnection connection) {
    hub.endStreamsOf(connection);
  }

  /** Forgets the streams of a connection that closed. */
  public void dropStreamsOf(HttpConnection connection) {
    hub.dropStreamsOf(connection);
  }

  /** Open ADS streams. */
  public int streams() {
    return hub.size();
  }
}
