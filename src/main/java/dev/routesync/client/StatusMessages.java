package dev.routesync.client;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * The {@code grpc-message} of a call, decoded. Vert.x 5.0's client reads it only from the headers
 * of a trailers-only answer, so a stream that ends with an error after sending messages loses it;
 * this reads the trailers too.
 */
final class StatusMessages {

  private StatusMessages() {}

  /** The trailer's message, else the header's, else empty. */
  static String of(io.vertx.grpc.client.GrpcClientResponse<?, ?> response) {
    String raw = response.trailers().get("grpc-message");
    if (raw == null) {
      raw = response.headers().get("grpc-message");
    }
    return raw == null ? "" : percentDecoded(raw);
  }

  /**
   * The gRPC spec's percent-decoding: {@code %XX} is a UTF-8 byte, everything else is itself
   * (unlike form decoding, {@code +} stays {@code +}); a malformed escape stays as written.
   */
  static String percentDecoded(String text) {
    if (text.indexOf('%') < 0) {
      return text;
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(text.length());
    int i = 0;
    while (i < text.length()) {
      if (text.charAt(i) == '%'
          && i + 2 < text.length()
          && isHex(text, i + 1)
          && isHex(text, i + 2)) {
        bytes.write(Integer.parseInt(text.substring(i + 1, i + 3), 16));
        i += 3;
      } else {
        int codePoint = text.codePointAt(i);
        byte[] literal = Character.toString(codePoint).getBytes(StandardCharsets.UTF_8);
        bytes.write(literal, 0, literal.length);
        i += Character.charCount(codePoint);
      }
    }
    return bytes.toString(StandardCharsets.UTF_8);
  }

  private static boolean isHex(String text, int index) {
    return Character.digit(text.charAt(index), 16) >= 0;
  }
}
