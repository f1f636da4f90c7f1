package dev.routesync.xds;

import dev.routesync.table.RoutingTable;
import dev.routesync.table.TableTrust;
import dev.routesync.table.TableView;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.grpc.server.GrpcServer;
import io.vertx.grpc.server.GrpcServerOptions;

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

  private final XdsHub hub = new XdsHub();
  private final AssignmentCache assignments = new AssignmentCache();
  private final GrpcServer grpc;

  public XdsServer(Vertx vertx, TableView table, TableTrust trust, XdsObserver observer) {
    XdsSources sources = new XdsSources(table, trust, assignments, new WildcardClusters());
    this.grpc =
        GrpcServer.server(
            vertx,
            new GrpcServerOptions()
                .setMaxMessageSize(MAX_REQUEST_BYTES)
                .setScheduleDeadlineAutomatically(false));
    grpc.addService(new AdsService(sources, hub, observer, new NackLog(System::nanoTime)));
    // Streams opened before the first sync wait for this to send anything.
    trust.onRaise(hub::wakeAll);
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
