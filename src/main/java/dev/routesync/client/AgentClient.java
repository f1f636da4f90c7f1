package dev.routesync.client;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import dev.routesync.api.v1.ClientsResponse;
import dev.routesync.api.v1.LatencyResponse;
import dev.routesync.api.v1.ListRequest;
import dev.routesync.api.v1.ListResponse;
import dev.routesync.api.v1.RegistryGrpcClient;
import dev.routesync.api.v1.ResolveRequest;
import dev.routesync.api.v1.ServiceEndpoints;
import dev.routesync.api.v1.StatusRequest;
import dev.routesync.api.v1.StatusResponse;
import dev.routesync.api.v1.WatchEvent;
import dev.routesync.api.v1.WatchRequest;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.SocketAddress;
import io.vertx.grpc.client.GrpcClient;
import io.vertx.grpc.client.GrpcClientOptions;
import io.vertx.grpc.client.GrpcClientRequest;
import io.vertx.grpc.client.GrpcClientResponse;
import io.vertx.grpc.client.InvalidStatusException;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.common.ServiceMethod;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * The agent's gRPC Registry on its Unix socket, as blocking calls for the picocli thread. Owns a
 * Vert.x instance of its own: one client per command run, closed when it ends.
 *
 * <p>Every failure is an {@link AgentCallException} with a one-line message.
 */
public final class AgentClient implements AutoCloseable {

  /** How long a unary call may take, connection included. */
  static final long CALL_TIMEOUT_SECONDS = 10;

  static final String CALL_TIMEOUT_TEXT = CALL_TIMEOUT_SECONDS + "s";

  /**
   * The most the client reads of one answer: one gRPC message (a List, a Resolve, each Watch event)
   * or one HTTP body ({@code get drift}). A socket that sends more is cut off with a one-line error
   * instead of filling the heap. A List of 16 MiB holds on the order of 100,000 endpoints; larger
   * tables are read a namespace at a time.
   */
  static final int MAX_ANSWER_BYTES = 16 << 20;

  static final String MAX_ANSWER_TEXT = (MAX_ANSWER_BYTES >> 20) + " MiB";

  /** The most of an error answer's body that is read, of which one line is shown. */
  private static final int MAX_ERROR_BODY_BYTES = 4096;

  /**
   * How the agent's UNAVAILABLE message begins while it has no table to serve (the agent's {@code
   * TableTrust.NOT_SYNCED}; part of the API, see docs/api.md).
   */
  static final String NOT_SYNCED = "not synced yet";

  private final Path socket;
  private final Vertx vertx;
  private final GrpcClient grpc;
  private final SocketAddress address;

  private AgentClient(Path socket) {
    this.socket = socket;
    this.vertx = Vertx.builder().with(new VertxOptions().setPreferNativeTransport(true)).build();
    this.grpc =
        GrpcClient.client(vertx, new GrpcClientOptions().setMaxMessageSize(MAX_ANSWER_BYTES));
    this.address = SocketAddress.domainSocketAddress(socket.toString());
  }

  /**
   * A client for the agent on {@code socket}. Fails at once, without starting Vert.x, when no file
   * is there: the usual case of an agent that is not running or a wrong path.
   */
  public static AgentClient open(Path socket) {
    if (!Files.exists(socket)) {
      throw AgentFailures.noAgent(socket);
    }
    return new AgentClient(socket);
  }

  /** Every Service, or those of {@code request}'s namespace. */
  public ListResponse list(ListRequest request) {
    return await(onEventLoop(() -> unary(RegistryGrpcClient.List, request)));
  }

  /**
   * The drift detector's report, {@code GET /v1/drift} over the same socket (HTTP/1.1: the socket
   * serves gRPC and HTTP side by side, told apart by content type).
   */
  public JsonObject drift() {
    return new JsonObject(get("/v1/drift"));
  }

  /**
   * Each Watch and ADS stream's sync state, {@code GET /v1/clients?limit=N}: at most {@code limit}
   * streams, the most behind first.
   */
  public ClientsResponse clients(int limit) {
    ClientsResponse.Builder out = ClientsResponse.newBuilder();
    parse("/v1/clients?limit=" + limit, out);
    return out.build();
  }

  /** The propagation latency on this node, {@code GET /v1/latency}. */
  public LatencyResponse latency() {
    LatencyResponse.Builder out = LatencyResponse.newBuilder();
    parse("/v1/latency", out);
    return out.build();
  }

  // Lenient: an agent newer than this client may answer with fields it does not know.
  private void parse(String uri, com.google.protobuf.Message.Builder into) {
    try {
      JsonFormat.parser().ignoringUnknownFields().merge(get(uri).toString(), into);
    } catch (InvalidProtocolBufferException e) {
      throw new AgentCallException(
          "the answer to GET "
              + uri
              + " on "
              + socket
              + " is not the expected JSON: "
              + AgentFailures.oneLine(e.getMessage()));
    }
  }

  /** The body of {@code GET uri} on the socket, bounded as {@link #body} says. */
  private Buffer get(String uri) {
    return await(
        onEventLoop(
            () ->
                vertx
                    .createHttpClient()
                    .request(
                        new RequestOptions()
                            .setServer(address)
                            .setHost("localhost")
                            .setMethod(HttpMethod.GET)
                            .setURI(uri)
                            .setConnectTimeout(TimeUnit.SECONDS.toMillis(CALL_TIMEOUT_SECONDS)))
                    .compose(request -> request.send())
                    .compose(response -> body(response, uri))));
  }

  /**
   * An answer's body, read as it arrives up to {@link #MAX_ANSWER_BYTES} (an error answer's up to
   * {@link #MAX_ERROR_BODY_BYTES}); past that the request is reset and the call fails. Attached on
   * the event loop, in the turn the response arrived, so no chunk is missed.
   */
  private Future<Buffer> body(HttpClientResponse response, String uri) {
    boolean ok = response.statusCode() == 200;
    long cap = ok ? MAX_ANSWER_BYTES : MAX_ERROR_BODY_BYTES;
    Promise<Buffer> read = Promise.promise();
    Buffer body = Buffer.buffer();
    response.exceptionHandler(read::tryFail);
    response.handler(
        chunk -> {
          if (read.future().isComplete()) {
            return;
          }
          if (body.length() + (long) chunk.length() > cap && ok) {
            read.tryFail(
                new AgentCallException(
                    "the answer to GET "
                        + uri
                        + " on "
                        + socket
                        + " is larger than "
                        + MAX_ANSWER_TEXT
                        + ", the most this client reads; stopped reading it"));
            response.request().reset();
            return;
          }
          body.appendBuffer(chunk, 0, (int) Math.min(chunk.length(), cap - body.length()));
          if (!ok && body.length() >= cap) {
            read.tryComplete(body); // enough for one line of error
            response.request().reset();
          }
        });
    response.endHandler(end -> read.tryComplete(body));
    return read.future()
        .compose(
            bytes ->
                ok
                    ? Future.succeededFuture(bytes)
                    : Future.failedFuture(
                        new AgentCallException(
                            "GET "
                                + uri
                                + " on "
                                + socket
                                + " answered "
                                + response.statusCode()
                                + ": "
                                + AgentFailures.oneLine(bytes.toString()))));
  }

  /** One Service, or empty when the agent's table does not hold it (NOT_FOUND). */
  public Optional<ServiceEndpoints> resolve(ResolveRequest request) {
    return await(
        onEventLoop(() -> unary(RegistryGrpcClient.Resolve, request))
            .map(Optional::of)
            .recover(
                error ->
                    error instanceof InvalidStatusException status
                            && status.actualStatus() == GrpcStatus.NOT_FOUND
                        ? Future.succeededFuture(Optional.empty())
                        : Future.failedFuture(error)));
  }

  /**
   * How the agent's table stands (Status): answered before its first sync too. Fails when the agent
   * predates Status; see {@link #statusIfServed}.
   */
  public StatusResponse status() {
    return statusIfServed()
        .orElseThrow(
            () ->
                new AgentCallException(
                    "the agent on "
                        + socket
                        + " does not answer Status (an agent older than this client)"));
  }

  /** Status, or empty from an agent older than Status (UNIMPLEMENTED). */
  public Optional<StatusResponse> statusIfServed() {
    return await(
        onEventLoop(() -> unary(RegistryGrpcClient.Status, StatusRequest.getDefaultInstance()))
            .map(Optional::of)
            .recover(
                error ->
                    error instanceof InvalidStatusException status
                            && status.actualStatus() == GrpcStatus.UNIMPLEMENTED
                        ? Future.succeededFuture(Optional.empty())
                        : Future.failedFuture(error)));
  }

  /**
   * Streams the watch to {@code onEvent}, on a Vert.x event loop, one event at a time, and blocks
   * until the agent ends the stream. Returns when it ends with status OK; fails otherwise.
   */
  public void watch(WatchRequest request, Consumer<WatchEvent> onEvent) {
    // An agent that has not synced holds a Watch open without a word until it has; a List of the
    // same scope fails at once with "not synced yet", so the command can say so instead of waiting.
    list(ListRequest.newBuilder().setNamespace(request.getNamespace()).build());
    CompletableFuture<Void> ended = new CompletableFuture<>();
    vertx.getOrCreateContext().runOnContext(start -> startWatch(request, onEvent, ended));
    try {
      ended.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AgentCallException("interrupted", e);
    } catch (ExecutionException e) {
      throw AgentFailures.describe(e.getCause(), socket);
    }
  }

  // Runs on one event loop, so the message handler is attached in the same turn as the response
  // arrives; attached later (from another thread), the first messages would be dropped
  // (STACK-NOTES). Hence the request API rather than RegistryGrpcClient.watch, which also waits
  // for the request to be written before it looks at the response, and drops the final status.
  private void startWatch(
      WatchRequest request, Consumer<WatchEvent> onEvent, CompletableFuture<Void> ended) {
    grpc.request(address, RegistryGrpcClient.Watch)
        .onComplete(
            created -> {
              if (created.failed()) {
                ended.completeExceptionally(created.cause());
                return;
              }
              GrpcClientRequest<WatchRequest, WatchEvent> call = created.result();
              call.response()
                  .onComplete(
                      answered -> {
                        if (answered.failed()) {
                          ended.completeExceptionally(answered.cause());
                        } else {
                          follow(answered.result(), onEvent, ended);
                        }
                      });
              call.end(request).onFailure(ended::completeExceptionally);
            });
  }

  private void follow(
      GrpcClientResponse<WatchRequest, WatchEvent> response,
      Consumer<WatchEvent> onEvent,
      CompletableFuture<Void> ended) {
    // A reset stream ends neither the response nor its end() future: only this sees it.
    response.errorHandler(
        error ->
            ended.completeExceptionally(
                new AgentCallException("the watch on " + socket + " was reset (" + error + ")")));
    response.handler(onEvent::accept);
    response
        .end()
        .onComplete(
            done -> {
              if (done.succeeded()) {
                ended.complete(null);
              } else {
                ended.completeExceptionally(endedWith(response, done.cause()));
              }
            });
  }

  // The request API rather than RegistryGrpcClient's unary methods, which drop the status message
  // of a failed call: "not synced yet" is told apart from other UNAVAILABLE answers by it.
  private <Q, R> Future<R> unary(ServiceMethod<R, Q> method, Q request) {
    return grpc.request(address, method)
        .compose(
            call ->
                call.end(request)
                    .compose(
                        sent ->
                            call.response()
                                .compose(
                                    response ->
                                        response
                                            .last()
                                            .recover(
                                                error ->
                                                    Future.failedFuture(
                                                        failedWith(response, error))))));
  }

  private Throwable failedWith(GrpcClientResponse<?, ?> response, Throwable error) {
    if (response.status() == GrpcStatus.UNAVAILABLE
        && StatusMessages.of(response).startsWith(NOT_SYNCED)) {
      return AgentFailures.notSynced(socket);
    }
    return error;
  }

  private Throwable endedWith(
      GrpcClientResponse<WatchRequest, WatchEvent> response, Throwable error) {
    GrpcStatus status = response.status();
    if (status == null || status == GrpcStatus.OK) {
      return error;
    }
    String message = StatusMessages.of(response);
    return new AgentCallException(
        "the watch on "
            + socket
            + " ended with "
            + status.name()
            + (message.isEmpty() ? "" : ": " + message),
        error);
  }

  /**
   * Starts {@code call} on this client's event loop, so every handler of its chain is attached
   * before the event loop can deliver what it waits for. Started from the command's thread, a
   * response that arrived (and ended) before {@code body()} was attached was lost, and {@code get
   * drift} waited out its 10 s timeout (about one run in four of DriftAgentTest).
   */
  private <T> Future<T> onEventLoop(java.util.function.Supplier<Future<T>> call) {
    io.vertx.core.Promise<T> answer = io.vertx.core.Promise.promise();
    vertx.getOrCreateContext().runOnContext(start -> call.get().onComplete(answer));
    return answer.future();
  }

  private <T> T await(Future<T> call) {
    try {
      return call.toCompletionStage()
          .toCompletableFuture()
          .get(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AgentCallException("interrupted", e);
    } catch (ExecutionException e) {
      throw AgentFailures.describe(e.getCause(), socket);
    } catch (TimeoutException e) {
      throw AgentFailures.describe(e, socket);
    }
  }

  @Override
  public void close() {
    try {
      vertx.close().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      // The command has its answer; a slow close must not change the exit code.
    }
  }
}
