package dev.routesync.testing;

import dev.routesync.api.v1.WatchRequest;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * HTTP/2 bytes written by hand, for clients no library would be: one that opens Watch streams and
 * then never reads its socket, or one that stops halfway through a frame. Strings carry the bytes
 * one char each (ISO-8859-1), as {@link RawConnection#write} sends them.
 */
public final class RawH2 {

  private static final String PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

  private RawH2() {}

  /**
   * The preface and SETTINGS with the largest windows (so HTTP/2 flow control never stops the
   * server: only the unread socket does), then one {@code Registry/Watch} on everything per stream.
   */
  public static String watches(int streams) {
    WatchRequest[] everything = new WatchRequest[streams];
    java.util.Arrays.fill(everything, WatchRequest.getDefaultInstance());
    return watches(everything);
  }

  /** As {@link #watches(int)}, one stream per request. */
  public static String watches(WatchRequest... requests) {
    StringBuilder out = new StringBuilder(PREFACE);
    out.append(frame(4, 0, 0, bytes(0, 4, 0x7f, 0xff, 0xff, 0xff))); // INITIAL_WINDOW_SIZE max
    out.append(frame(8, 0, 0, bytes(0x7f, 0xfe, 0xff, 0xff))); // connection window to max
    for (int i = 0; i < requests.length; i++) {
      int stream = 2 * i + 1;
      byte[] message = requests[i].toByteArray();
      int length = message.length;
      String grpc =
          bytes(0, length >>> 24, (length >>> 16) & 0xff, (length >>> 8) & 0xff, length & 0xff)
              + new String(message, StandardCharsets.ISO_8859_1);
      out.append(frame(1, 0x4, stream, watchHeaders()));
      out.append(frame(0, 0x1, stream, grpc)); // the request, last
    }
    return out.toString();
  }

  /** The preface, SETTINGS, then the first bytes of a HEADERS frame: a request cut short. */
  public static String halfSentHeaders() {
    String headers = frame(1, 0x4, 1, watchHeaders());
    return PREFACE + frame(4, 0, 0, "") + headers.substring(0, headers.length() / 2);
  }

  private static String watchHeaders() {
    ByteArrayOutputStream block = new ByteArrayOutputStream();
    literal(block, ":method", "POST");
    literal(block, ":scheme", "http");
    literal(block, ":path", "/routesync.v1.Registry/Watch");
    literal(block, ":authority", "localhost");
    literal(block, "content-type", "application/grpc");
    literal(block, "te", "trailers");
    return block.toString(StandardCharsets.ISO_8859_1);
  }

  // HPACK literal header field without indexing, new name, no Huffman (RFC 7541 6.2.2).
  private static void literal(ByteArrayOutputStream block, String name, String value) {
    block.write(0);
    block.write(name.length());
    block.writeBytes(name.getBytes(StandardCharsets.ISO_8859_1));
    block.write(value.length());
    block.writeBytes(value.getBytes(StandardCharsets.ISO_8859_1));
  }

  private static String frame(int type, int flags, int stream, String payload) {
    int length = payload.length();
    return bytes(
            length >>> 16,
            (length >>> 8) & 0xff,
            length & 0xff,
            type,
            flags,
            stream >>> 24,
            (stream >>> 16) & 0xff,
            (stream >>> 8) & 0xff,
            stream & 0xff)
        + payload;
  }

  private static String bytes(int... values) {
    StringBuilder out = new StringBuilder();
    for (int value : values) {
      out.append((char) value);
    }
    return out.toString();
  }
}
