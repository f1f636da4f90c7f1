package dev.routesync.serve;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.SocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * gRPC at the frame level: HTTP/2 with prior knowledge over the Unix socket, one connection, and a
 * request body the test writes byte by byte (5-byte prefix and payload), so it can send what no
 * gRPC library would. Reads the status from the trailers, or from the headers of a trailers-only
 * answer.
 */
final class RawGrpc implements AutoCloseable {

  /** What came back: HTTP status, {@code grpc-status} and the raw {@code grpc-message}. */
  record Answer(int httpStatus, String grpcStatus, String grpcMessage, Buffer body) {}

  private final HttpClient client;
  private final SocketAddress socket;

  RawGrpc(Vertx vertx, Path socket) {
    this.client =
        vertx.createHttpClient(
            new HttpClientOptions()
                .setProtocolVersion(HttpVersion.HTTP_2)
                .setHttp2ClearTextUpgrade(false),
            new PoolOptions().setHttp2MaxSize(1));
    this.socket = SocketAddress.domainSocketAddress(socket.toString());
  }

  /** A 5-byte gRPC prefix ({@code flag}, big-endian {@code length}) followed by {@code payload}. */
  static Buffer frame(int flag, int length, byte[] payload) {
    return Buffer.buffer().appendByte((byte) flag).appendInt(length).appendBytes(payload);
  }

  static Buffer frame(byte[] payload) {
    return frame(0, payload.length, payload);
  }

  static byte[] bytes(int... values) {
    byte[] bytes = new byte[values.length];
    for (int i = 0; i < values.length; i++) {
      bytes[i] = (byte) values[i];
    }
    return bytes;
  }

  /** Sends {@code body} as the whole request of {@code method}, and waits for the full answer. */
  Answer call(String method, Map<String, String> headers, Buffer body, Duration timeout)
      throws Exception {
    return start(method, headers, body).await(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  Future<Answer> start(String method, Map<String, String> headers, Buffer body) {
    RequestOptions options =
        new RequestOptions()
            .setServer(socket)
            .setHost("localhost")
            .setMethod(HttpMethod.POST)
            .setURI("/routesync.v1.Registry/" + method)
            .putHeader("content-type", "application/grpc")
            .putHeader("te", "trailers");
    headers.forEach(options::putHeader);
    // Ask for the body inside the step that sends the request, not in a second compose chained
    // from the calling thread. Vert.x drops a response's end when no body or end handler is set
    // as the response arrives, and a trailers-only answer (headers with END_STREAM) ends in the
    // frame that delivers the response. Chained from the calling thread, a call was lost whenever
    // that thread was descheduled between the two compose calls long enough for the answer to
    // arrive: body() then never completed (MalformedRequestTest's 1,224-call test timed out
    // in 2 of 20 runs, and always when the thread was stalled there on purpose). The send
    // step runs on the request's event loop, which delivers the response only after it returns.
    return client
        .request(options)
        .compose(
            request ->
                request
                    .send(body)
                    .compose(
                        response -> response.body().map(received -> answer(response, received))));
  }

  private static Answer answer(HttpClientResponse response, Buffer body) {
    String status = response.trailers().get("grpc-status");
    String message = response.trailers().get("grpc-message");
    if (status == null) {
      status = response.headers().get("grpc-status");
      message = response.headers().get("grpc-message");
    }
    return new Answer(response.statusCode(), status, message, body);
  }

  @Override
  public void close() throws Exception {
    client.close().await(10, TimeUnit.SECONDS);
  }
}
