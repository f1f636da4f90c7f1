package dev.routesync.serve;

import java.nio.charset.StandardCharsets;

/**
 * The {@code grpc-message} header value, percent-encoded as the gRPC HTTP/2 spec says: UTF-8 bytes
 * outside 0x20-0x7E, and '%' itself, become {@code %XX}; everything else is itself. Vert.x 5.0.7
 * form-encodes instead ({@code URLEncoder}), so clients that show the raw value print {@code
 * service%20shop%2Fnope}; setting the header ourselves bypasses that (Vert.x leaves a {@code
 * grpc-message} already in the trailers alone).
 */
final class GrpcStatusMessage {

  static final String HEADER = "grpc-message";

  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private GrpcStatusMessage() {}

  static String percentEncoded(String message) {
    byte[] bytes = message.getBytes(StandardCharsets.UTF_8);
    StringBuilder encoded = new StringBuilder(bytes.length);
    for (byte b : bytes) {
      int unsigned = b & 0xff;
      if (unsigned >= 0x20 && unsigned <= 0x7e && unsigned != '%') {
        encoded.append((char) unsigned);
      } else {
        encoded.append('%').append(HEX[unsigned >> 4]).append(HEX[unsigned & 0xf]);
      }
    }
    return encoded.toString();
  }
}
