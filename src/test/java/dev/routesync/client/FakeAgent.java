package dev.routesync.client;

import static java.util.stream.Collectors.toMap;

import dev.routesync.api.v1.ListResponse;
import dev.routesync.api.v1.RegistryGrpcService;
import dev.routesync.api.v1.ServiceEndpoints;
import dev.routesync.api.v1.WatchEvent;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.net.SocketAddress;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.server.GrpcServer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A stand-in for the agent's gRPC Registry on a Unix socket, answering canned messages and
 * recording the requests it got. Configure it before {@link #start}.
 */
final class FakeAgent implements AutoCloseable {

  final Path socket;
  final List<Object> requests = new CopyOnWriteArrayList<>();

  private ListResponse list = ListResponse.getDefaultInstance();
  private GrpcStatus listStatus = GrpcStatus.OK;
  private Map<String, ServiceEndpoints> services = Map.of();
  private List<WatchEvent> events = List.of();
  private GrpcStatus watchEnd = GrpcStatus.OK;
  private boolean hangUpWatch;
  private String watchEndMessage;
  private final Vertx vertx =
      Vertx.builder().with(new VertxOptions().setPreferNativeTransport(true)).build();
  private HttpServer server;

  FakeAgent(Path socket) {
    this.socket = socket;
  }

  FakeAgent list(ListResponse answer) {
    this.list = answer;
    return this;
  }

  FakeAgent failList(GrpcStatus status) {
    this.listStatus = status;
    return this;
  }

  /** Resolve answers these Services, keyed {@code namespace/name}, and NOT_FOUND for others. */
  FakeAgent services(ServiceEndpoints... answers) {
    this.services =
        Arrays.stream(answers).collect(toMap(s -> s.getNamespace() + "/" + s.getName(), s -> s));
    return this;
  }

  /** Watch sends these at once, then ends with {@code status} when the client has sent its all. */
  FakeAgent watch(GrpcStatus status, String message, WatchEvent... sent) {
    this.events = List.of(sent);
    this.watchEnd = status;
    this.watchEndMessage = message;
    return this;
  }

  /** Watch sends these, then closes the connection instead of ending the stream. */
  FakeAgent watchThenHangUp(WatchEvent... sent) {
    this.events = List.of(sent);
    this.hangUpWatch = true;
    return this;
  }

  /** Serves the Registry with the canned answers. */
  FakeAgent start() throws Exception {
    return start(registry());
  }

  /** Serves {@code handler} instead, for servers that are not (only) gRPC. */
  FakeAgent start(Handler<HttpServerRequest> handler) throws Exception {
    server = vertx.createHttpServer().requestHandler(handler);
    server.listen(SocketAddress.domainSocketAddress(socket.toString())).await(10, TimeUnit.SECONDS);
    return this;
  }

  private GrpcServer registry() {
    GrpcServer grpc = GrpcServer.server(vertx);
    grpc.callHandler(
        RegistryGrpcService.List,
        call ->
            call.last()
                .onSuccess(
                    request -> {
                      requests.add(request);
                      if (listStatus == GrpcStatus.OK) {
                        call.response().end(list);
                      } else {
                        call.response().status(listStatus).end();
                      }
                    }));
    grpc.callHandler(
        RegistryGrpcService.Resolve,
        call ->
            call.last()
                .onSuccess(
                    request -> {
                      requests.add(request);
                      String key = request.getNamespace() + "/" + request.getName();
                      ServiceEndpoints found = services.get(key);
                      if (found == null) {
                        call.response()
                            .status(GrpcStatus.NOT_FOUND)
                            .statusMessage("service " + key + " not found")
                            .end();
                      } else {
                        call.response().end(found);
                      }
                    }));
    grpc.callHandler(
        RegistryGrpcService.Watch,
        call -> {
          call.handler(requests::add);
          // Sent before the request has even been read: the client must not lose them.
          events.forEach(call.response()::write);
          call.endHandler(
              end -> {
                if (hangUpWatch) {
                  call.connection().close();
                } else {
                  call.response().status(watchEnd).statusMessage(watchEndMessage).end();
                }
              });
        });
    return grpc;
  }

  @Override
  public void close() throws TimeoutException {
    if (server != null) {
      server.close().await(10, TimeUnit.SECONDS);
    }
    vertx.close().await(10, TimeUnit.SECONDS);
  }
}
