package dev.routesync.xds;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import io.vertx.grpc.common.GrpcMessage;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.server.StatusException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.zip.GZIPInputStream;

/**
 * Decodes the request messages of an ADS stream. Vert.x 5.0.7's typed stream handler cancels the
 * stream on a message it cannot decode, which the client sees as CANCELLED with no reason; reading
 * the raw messages here lets the stream end with the status the gRPC spec asks for:
 * INVALID_ARGUMENT for bad protobuf, INTERNAL for a payload that does not decompress, UNIMPLEMENTED
 * for an encoding other than identity and gzip, RESOURCE_EXHAUSTED for one that decompresses past
 * the request limit (a few bytes of gzip can claim gigabytes).
 */
final class AdsRequests {

  private AdsRequests() {}

  static <T extends MessageLite> T decode(GrpcMessage message, Parser<T> parser)
      throws StatusException {
    byte[] bytes;
    String encoding = message.encoding();
    if ("identity".equals(encoding)) {
      bytes = message.payload().getBytes();
    } else if ("gzip".equals(encoding)) {
      bytes = gunzip(message.payload().getBytes());
    } else {
      throw new StatusException(
          GrpcStatus.UNIMPLEMENTED, "grpc-encoding not supported (identity and gzip are)");
    }
    try {
      return parser.parseFrom(bytes);
    } catch (InvalidProtocolBufferException e) {
      // protobuf's messages are fixed texts ("... malformed varint."), never the client's bytes.
      throw new StatusException(
          GrpcStatus.INVALID_ARGUMENT, "request is not a valid xDS request: " + e.getMessage());
    }
  }

  private static byte[] gunzip(byte[] compressed) throws StatusException {
    try (InputStream in = new GZIPInputStream(new java.io.ByteArrayInputStream(compressed))) {
      ByteArrayOutputStream out =
          new ByteArrayOutputStream(Math.min(compressed.length * 4, 1 << 16));
      byte[] buffer = new byte[8192];
      int read;
      while ((read = in.read(buffer)) > 0) {
        if (out.size() + read > XdsServer.MAX_REQUEST_BYTES) {
          throw new StatusException(
              GrpcStatus.RESOURCE_EXHAUSTED,
              "request message decompresses past the limit of "
                  + XdsServer.MAX_REQUEST_BYTES
                  + " bytes");
        }
        out.write(buffer, 0, read);
      }
      return out.toByteArray();
    } catch (IOException e) {
      throw new StatusException(GrpcStatus.INTERNAL, "could not decompress the request message");
    }
  }
}
