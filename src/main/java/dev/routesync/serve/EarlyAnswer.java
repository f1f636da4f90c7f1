package dev.routesync.serve;

import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.json.JsonObject;
import io.vertx.grpc.common.GrpcStatus;

/**
 * Ends a call the agent will not read to its end (its body is late, or it is over a share): a
 * status the client can read, then the stream reset (HTTP/2) or the connection closed (HTTP/1,
 * whose framing is lost mid-body). On gRPC a trailers-only answer with {@code grpc-status} and
 * {@code grpc-message}; on HTTP/JSON the usual JSON error body. Either only if nothing was answered
 * yet.
 */
final class EarlyAnswer {

  private static final long CANCEL = 0x8; // HTTP/2 error code

  private EarlyAnswer() {}

  static void end(
      HttpServerRequest request, boolean grpc, GrpcStatus status, int httpStatus, String message) {
    HttpServerResponse response = request.response();
    boolean http1 = request.version() != HttpVersion.HTTP_2;
    try {
      if (grpc && !response.headWritten()) {
        response
            .setStatusCode(200)
            .putHeader("content-type", "application/grpc")
            .putHeader("grpc-status", Integer.toString(status.code))
            .putHeader("grpc-message", message)
            .end();
      } else if (!grpc && !response.ended()) {
        if (http1) {
          response.putHeader("connection", "close");
        }
        response
            .setStatusCode(httpStatus)
            .putHeader("content-type", "application/json")
            .end(new JsonObject().put("status", httpStatus).put("error", message).encode());
      }
    } catch (IllegalStateException answeredMeanwhile) {
      // Answered in this same turn by the call's handler: the reset below still applies.
    }
    if (request.isEnded()) {
      return; // the client's side is complete: the answer ends the stream cleanly
    }
    if (http1) {
      request.connection().close();
    } else {
      response.reset(CANCEL);
    }
  }
}
