package dev.routesync.serve;

import com.google.protobuf.Descriptors;
import dev.routesync.api.v1.ListRequest;
import dev.routesync.api.v1.ListResponse;
import dev.routesync.api.v1.RegistryGrpcService;
import dev.routesync.api.v1.ResolveRequest;
import dev.routesync.api.v1.StatusRequest;
import dev.routesync.api.v1.StatusResponse;
import dev.routesync.api.v1.WatchRequest;
import dev.routesync.sidecars.SyncState;
import dev.routesync.streams.StreamHub;
import dev.routesync.table.FreshnessView;
import dev.routesync.table.InvalidNameException;
import dev.routesync.table.RoutingTable;
import dev.routesync.table.ServiceEndpoints;
import dev.routesync.table.ServiceKey;
import dev.routesync.table.TableTrust;
import dev.routesync.table.TableView;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.common.ServiceName;
import io.vertx.grpc.server.GrpcServer;
import io.vertx.grpc.server.GrpcServerRequest;
import io.vertx.grpc.server.GrpcServerResponse;
import io.vertx.grpc.server.Service;
import io.vertx.grpc.server.StatusException;
import java.util.Optional;
import java.util.function.Function;

/**
 * The {@code routesync.v1.Registry} service. Unary calls reply only after the request has ended
 * (replying earlier makes grpc-java reset the stream); every failure maps to a gRPC status with a
 * message a person can act on. Until the table is trusted, List and Resolve fail with UNAVAILABLE
 * ("not synced yet") and Watch streams wait for it (see {@link WatchStream}); Status answers at any
 * time, so a client can learn why.
 */
final class RegistryGrpc implements Service {

  /** Services one Watch may name; more is better served by a namespace or everything. */
  static final int MAX_WATCH_SERVICES = 1_000;

  private final TableView table;
  private final TableTrust trust;
  private final FreshnessView freshness;
  private final StaleSignal staleSignal;
  private final StreamHub<HttpConnection, WatchStream> hub;
  private final WatchSupply supply;
  private final ServeObserver observer;
  private final Function<HttpConnection, SyncState> tracker;

  /**
   * @param tracker a new Watch stream's sync state on a connection ({@code GET /v1/clients})
   */
  RegistryGrpc(
      TableView table,
      TableTrust trust,
      FreshnessView freshness,
      StaleSignal staleSignal,
      StreamHub<HttpConnection, WatchStream> hub,
      WatchSupply supply,
      ServeObserver observer,
      Function<HttpConnection, SyncState> tracker) {
    this.tracker = tracker;
    this.table = table;
    this.trust = trust;
    this.freshness = freshness;
    this.staleSignal = staleSignal;
    this.hub = hub;
    this.supply = supply;
    this.observer = observer;
  }

  @Override
  public ServiceName name() {
    return RegistryGrpcService.SERVICE_NAME;
  }

  // Reflection describes the services added this way.
  @Override
  public Descriptors.ServiceDescriptor descriptor() {
    return RegistryGrpcService.SERVICE_DESCRIPTOR;
  }

  @Override
  public void bind(GrpcServer server) {
    server.callHandler(RegistryGrpcService.Resolve, this::resolve);
    server.callHandler(RegistryGrpcService.List, this::list);
    server.callHandler(RegistryGrpcService.Watch, this::watch);
    server.callHandler(RegistryGrpcService.Status, this::status);
  }

  // No trust check: before the first sync this is how a client learns why List is UNAVAILABLE.
  private void status(GrpcServerRequest<StatusRequest, StatusResponse> call) {
    SingleRequest.of(call)
        .onSuccess(
            request -> {
              call.response().end(ProtoMapping.status(table.current(), freshness));
              observer.grpcCall(GrpcMethod.STATUS, GrpcStatus.OK);
            })
        .onFailure(error -> rejected(call.response(), GrpcMethod.STATUS, error));
  }

  private void resolve(
      GrpcServerRequest<ResolveRequest, dev.routesync.api.v1.ServiceEndpoints> call) {
    SingleRequest.of(call)
        .onSuccess(
            request -> {
              ServiceKey key;
              try {
                key = RegistryRequests.resolveKey(request);
              } catch (InvalidNameException e) {
                fail(
                    call.response(),
                    GrpcMethod.RESOLVE,
                    GrpcStatus.INVALID_ARGUMENT,
                    e.getMessage());
                return;
              }
              if (notServable(call.response(), GrpcMethod.RESOLVE)) {
                return;
              }
              Optional<ServiceEndpoints> service = table.current().get(key);
              if (service.isEmpty() || service.get().traffic().isExternalName()) {
                fail(
                    call.response(),
                    GrpcMethod.RESOLVE,
                    GrpcStatus.NOT_FOUND,
                    NotFound.message(key, service));
                return;
              }
              call.response().end(ProtoMapping.service(service.get()));
              observer.grpcCall(GrpcMethod.RESOLVE, GrpcStatus.OK);
            })
        .onFailure(error -> rejected(call.response(), GrpcMethod.RESOLVE, error));
  }

  private void list(GrpcServerRequest<ListRequest, ListResponse> call) {
    SingleRequest.of(call)
        .onSuccess(
            request -> {
              String namespace = request.getNamespace();
              try {
                RegistryRequests.namespaceFilter(namespace);
              } catch (InvalidNameException e) {
                fail(call.response(), GrpcMethod.LIST, GrpcStatus.INVALID_ARGUMENT, e.getMessage());
                return;
              }
              if (notServable(call.response(), GrpcMethod.LIST)) {
                return;
              }
              RoutingTable snapshot = table.current();
              call.response()
                  .end(
                      ProtoMapping.list(
                          snapshot.version(),
                          namespace.isEmpty()
                              ? snapshot.services()
                              : snapshot.servicesIn(namespace),
                          freshness));
              observer.grpcCall(GrpcMethod.LIST, GrpcStatus.OK);
            })
        .onFailure(error -> rejected(call.response(), GrpcMethod.LIST, error));
  }

  private void watch(GrpcServerRequest<WatchRequest, dev.routesync.api.v1.WatchEvent> call) {
    Context context = Vertx.currentContext(); // the call's: the stream runs there
    SingleRequest.of(call)
        .onSuccess(
            request -> {
              Optional<WatchFilter> filter = filter(call.response(), request);
              if (filter.isEmpty()) {
                return;
              }
              WatchStream stream =
                  new WatchStream(
                      context,
                      call.response(),
                      filter.get(),
                      table,
                      trust,
                      staleSignal,
                      observer,
                      supply,
                      call.format(),
                      tracked(call.connection(), request, filter.get()));
              var connection = call.connection();
              hub.add(connection, stream);
              Runnable gone =
                  () -> {
                    boolean wasOpen = stream.isOpen();
                    stream.closed();
                    if (wasOpen) {
                      observer.grpcCall(GrpcMethod.WATCH, GrpcStatus.CANCELLED);
                    }
                    hub.remove(connection, stream);
                  };
              call.errorHandler(error -> gone.run()); // cancelled by the client
              call.response().exceptionHandler(error -> gone.run());
              stream.open(request.getResumeFromVersion());
            })
        .onFailure(error -> rejected(call.response(), GrpcMethod.WATCH, error));
  }

  private SyncState tracked(HttpConnection connection, WatchRequest request, WatchFilter filter) {
    SyncState state = tracker.apply(connection);
    state.named(request.getClientName());
    state.subscribed(filter.services().size());
    return state;
  }

  private Optional<WatchFilter> filter(
      GrpcServerResponse<WatchRequest, dev.routesync.api.v1.WatchEvent> response,
      WatchRequest request) {
    // Each followed Service is held for the stream's life: without a cap, one 64 KiB request
    // holds about a megabyte per stream, times every stream a client opens.
    if (request.getServicesCount() > MAX_WATCH_SERVICES) {
      fail(
          response,
          GrpcMethod.WATCH,
          GrpcStatus.RESOURCE_EXHAUSTED,
          "a Watch may follow at most the limit of "
              + MAX_WATCH_SERVICES
              + " Services; watch a namespace or everything instead");
      return Optional.empty();
    }
    try {
      return Optional.of(RegistryRequests.watchFilter(request));
    } catch (InvalidNameException e) {
      fail(response, GrpcMethod.WATCH, GrpcStatus.INVALID_ARGUMENT, e.getMessage());
      return Optional.empty();
    }
  }

  // Before the table is trusted its emptiness means "don't know", not "no services": answering
  // NOT_FOUND or an empty list would make sidecars drop routes. UNAVAILABLE is retryable.
  private boolean notServable(GrpcServerResponse<?, ?> response, GrpcMethod method) {
    if (trust.servable()) {
      return false;
    }
    fail(response, method, GrpcStatus.UNAVAILABLE, trust.whyNotServable());
    return true;
  }

  private void fail(
      GrpcServerResponse<?, ?> response, GrpcMethod method, GrpcStatus status, String message) {
    response.status(status);
    response.trailers().set(GrpcStatusMessage.HEADER, GrpcStatusMessage.percentEncoded(message));
    response.end();
    observer.grpcCall(method, status);
  }

  // Not exactly one well-formed request message: end the call with the status SingleRequest
  // chose. Anything else means the client went away (reset, closed): there is no one to answer.
  private void rejected(GrpcServerResponse<?, ?> response, GrpcMethod method, Throwable error) {
    if (error instanceof StatusException status) {
      fail(response, method, status.status(), status.message());
    } else {
      observer.grpcAbortedByClient(method);
    }
  }
}
