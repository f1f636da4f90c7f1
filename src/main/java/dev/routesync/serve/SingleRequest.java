package dev.routesync.serve;

import com.google.protobuf.InvalidProtocolBufferException;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.grpc.common.CodecException;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.common.MessageSizeOverflowException;
import io.vertx.grpc.server.GrpcServerRequest;
import io.vertx.grpc.server.StatusException;

/**
 * The one request message of a unary or server-streaming call. Vert.x 5.0.7's {@code last()} fails
 * on a malformed message without answering the call, and silently keeps the last of several; here
 * every request that is not exactly one well-formed message fails with a {@link StatusException}
 * carrying the status to end the call with:
 *
 * <ul>
 *   <li>INVALID_ARGUMENT: not a valid protobuf message (bad varint, invalid UTF-8, ...), no
 *       complete message (the stream ended inside or before its length prefix), or more than one;
 *   <li>INTERNAL: a compressed message without {@code grpc-encoding}, or one that does not
 *       decompress (the gRPC spec's status for both);
 *   <li>UNIMPLEMENTED: a {@code grpc-encoding} the agent does not support (the spec again);
 *   <li>RESOURCE_EXHAUSTED: a message over the size limit, at once, before it is even read.
 * </ul>
 *
 * Any other failure means the client went away (reset, connection closed): nothing can be answered.
 */
final class SingleRequest {

  private SingleRequest() {}

  /** Call first thing in the call handler, before the request's first message can arrive. */
  static <Req> Future<Req> of(GrpcServerRequest<Req, ?> call) {
    Promise<Req> request = Promise.promise();
    int[] messages = {0}; // the call's context only
    call.messageHandler(message -> messages[0]++);
    call.invalidMessageHandler(
        invalid ->
            request.tryFail(
                invalid instanceof MessageSizeOverflowException tooLarge
                    ? new StatusException(
                        GrpcStatus.RESOURCE_EXHAUSTED,
                        "request message of "
                            + tooLarge.messageSize()
                            + " bytes is over the limit of "
                            + ApiServer.MAX_REQUEST_BYTES)
                    : new StatusException(GrpcStatus.INVALID_ARGUMENT, "invalid request message")));
    call.end()
        .onComplete(
            ended -> {
              if (ended.failed()) {
                request.tryFail(ended.cause());
              } else if (messages[0] != 1) {
                request.tryFail(
                    new StatusException(
                        GrpcStatus.INVALID_ARGUMENT,
                        messages[0] == 0
                            ? "no complete request message (the stream ended inside or before its"
                                + " length-prefixed message)"
                            : "expected exactly one request message, got " + messages[0]));
              } else {
                call.last()
                    .onSuccess(request::tryComplete)
                    .onFailure(
                        error ->
                            request.tryFail(
                                undecodable(call.methodName(), call.encoding(), error)));
              }
            });
    return request.future();
  }

  /**
   * The status for a request message that {@code last()} failed to decode with {@code error}: a
   * pure function of the method's name, the call's {@code grpc-encoding} and the error, so that a
   * fuzz test checks it on Vert.x's own decoder's failures ({@code RegistryRequestsFuzzTest}).
   */
  static StatusException undecodable(String methodName, String encoding, Throwable error) {
    if (error instanceof UnsupportedOperationException) {
      return RequestEncoding.unencoded(encoding)
          ? new StatusException(
              GrpcStatus.INTERNAL, "compressed request message without a grpc-encoding header")
          : new StatusException(
              GrpcStatus.UNIMPLEMENTED, "grpc-encoding not supported (identity and gzip are)");
    }
    if (error instanceof CodecException
        && error.getCause() instanceof InvalidProtocolBufferException invalid) {
      // protobuf's messages are fixed texts ("... malformed varint."), never the client's bytes.
      return new StatusException(
          GrpcStatus.INVALID_ARGUMENT,
          "request is not a valid " + methodName + " request: " + invalid.getMessage());
    }
    String failed =
        "identity".equals(encoding) || RequestEncoding.unencoded(encoding)
            ? "could not decode"
            : "could not decompress";
    return new StatusException(
        GrpcStatus.INTERNAL,
        failed + " the request message (" + error.getClass().getSimpleName() + ")");
  }
}
