package dev.routesync.serve;

import io.vertx.core.http.HttpServerRequest;
import io.vertx.grpc.server.GrpcServerRequest;

/**
 * Makes a compressed message in a request without a {@code grpc-encoding} an ordinary decode
 * failure. Vert.x 5.0.7's deframer throws from inside the HTTP/2 data handler on such a message
 * ("Handle me"), so the call never ends and holds its stream slot. Naming an encoding that no
 * decoder knows, when the request names none (or {@code identity}), makes the deframer pass the
 * message on and the decode fail instead, which {@link SingleRequest} answers with INTERNAL, as the
 * gRPC spec asks. Uncompressed messages are unaffected: they are decoded as {@code identity}.
 */
final class RequestEncoding {

  private static final String HEADER = "grpc-encoding";

  /** Not a real encoding: a compressed message "in" it cannot be decoded. */
  static final String NONE = "routesync-none";

  private RequestEncoding() {}

  /** Call before the gRPC server sees {@code request}. */
  static void markUnencoded(HttpServerRequest request) {
    String encoding = request.getHeader(HEADER);
    if (encoding == null || encoding.equals("identity")) {
      request.headers().set(HEADER, NONE);
    }
  }

  /** Whether the client named no encoding, so a compressed message is a protocol error. */
  static boolean unencoded(GrpcServerRequest<?, ?> call) {
    return unencoded(call.encoding());
  }

  /** As {@link #unencoded(GrpcServerRequest)}, for the call's {@code grpc-encoding}. */
  static boolean unencoded(String encoding) {
    return NONE.equals(encoding);
  }
}
