package dev.routesync.testing;

import dev.routesync.api.v1.WatchRequest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http2.DefaultHttp2FrameReader;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2FrameAdapter;
import io.netty.handler.codec.http2.Http2FrameTypes;
import io.netty.handler.codec.http2.Http2Headers;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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

  /**
   * The preface, an empty SETTINGS and one unary {@code routesync.v1.Registry/<method>} call on
   * stream 1 sending {@code authority} as {@code :authority}, in one string: written at once, the
   * server reads its request in the same read as the preface.
   */
  public static String unary(String method, String authority, com.google.protobuf.Message request) {
    byte[] message = request.toByteArray();
    int length = message.length;
    String grpc =
        bytes(0, length >>> 24, (length >>> 16) & 0xff, (length >>> 8) & 0xff, length & 0xff)
            + new String(message, StandardCharsets.ISO_8859_1);
    ByteArrayOutputStream block = new ByteArrayOutputStream();
    literal(block, ":method", "POST");
    literal(block, ":scheme", "http");
    literal(block, ":path", "/routesync.v1.Registry/" + method);
    literal(block, ":authority", authority);
    literal(block, "content-type", "application/grpc");
    literal(block, "te", "trailers");
    return PREFACE
        + frame(4, 0, 0, "")
        + frame(1, 0x4, 1, block.toString(StandardCharsets.ISO_8859_1))
        + frame(0, 0x1, 1, grpc);
  }

  /**
   * One frame a server sent: its type ({@link io.netty.handler.codec.http2.Http2FrameTypes}), its
   * stream, and for HEADERS the decoded headers, for RST_STREAM and GOAWAY the error code.
   */
  public record Frame(
      byte type, int stream, boolean endStream, Map<String, String> headers, long errorCode) {

    public boolean is(byte type, int stream) {
      return this.type == type && this.stream == stream;
    }
  }

  /**
   * The whole frames in {@code received} (what a server wrote after the preface, one char a byte),
   * decoded by Netty's own frame reader and HPACK decoder; a partial frame at the end is left out.
   */
  public static List<Frame> frames(String received) {
    List<Frame> frames = new ArrayList<>();
    Http2FrameAdapter collect =
        new Http2FrameAdapter() {
          @Override
          public int onDataRead(
              ChannelHandlerContext ctx, int stream, ByteBuf data, int padding, boolean end) {
            frames.add(new Frame(Http2FrameTypes.DATA, stream, end, Map.of(), 0));
            return data.readableBytes() + padding;
          }

          @Override
          public void onHeadersRead(
              ChannelHandlerContext ctx,
              int stream,
              Http2Headers headers,
              int dependency,
              short weight,
              boolean exclusive,
              int padding,
              boolean end) {
            onHeadersRead(ctx, stream, headers, padding, end);
          }

          @Override
          public void onHeadersRead(
              ChannelHandlerContext ctx,
              int stream,
              Http2Headers headers,
              int padding,
              boolean end) {
            Map<String, String> decoded = new LinkedHashMap<>();
            headers.forEach(
                header -> decoded.put(header.getKey().toString(), header.getValue().toString()));
            frames.add(new Frame(Http2FrameTypes.HEADERS, stream, end, decoded, 0));
          }

          @Override
          public void onRstStreamRead(ChannelHandlerContext ctx, int stream, long errorCode) {
            frames.add(new Frame(Http2FrameTypes.RST_STREAM, stream, true, Map.of(), errorCode));
          }

          @Override
          public void onGoAwayRead(
              ChannelHandlerContext ctx, int lastStream, long errorCode, ByteBuf debug) {
            frames.add(new Frame(Http2FrameTypes.GO_AWAY, 0, false, Map.of(), errorCode));
          }
        };
    ByteBuf in = Unpooled.wrappedBuffer(received.getBytes(StandardCharsets.ISO_8859_1));
    // The reader takes its buffers from a channel context's allocator.
    EmbeddedChannel channel = new EmbeddedChannel(new ChannelInboundHandlerAdapter());
    ChannelHandlerContext context = channel.pipeline().firstContext();
    try (DefaultHttp2FrameReader reader = new DefaultHttp2FrameReader()) {
      while (in.isReadable()) {
        int before = in.readerIndex();
        reader.readFrame(context, in, collect);
        if (in.readerIndex() == before) {
          break; // a partial frame: wait for the rest
        }
      }
    } catch (Http2Exception e) {
      throw new IllegalStateException("not HTTP/2 frames: " + e.getMessage(), e);
    } finally {
      in.release();
      channel.finishAndReleaseAll();
    }
    return frames;
  }

  /** True once {@code received} holds the end of stream {@code stream}, or a GOAWAY. */
  public static boolean ended(String received, int stream) {
    for (Frame frame : frames(received)) {
      if (frame.type() == Http2FrameTypes.GO_AWAY
          || (frame.stream() == stream && frame.endStream())) {
        return true;
      }
    }
    return false;
  }

  /** The preface, SETTINGS, then the first bytes of a HEADERS frame: a request cut short. */
  /**
   * The preface, an empty SETTINGS, and on stream 1 the whole HEADERS of a unary {@code
   * routesync.v1.Registry/<method>} call without END_STREAM: the request message never follows.
   */
  public static String headersWithoutBody(String method) {
    return headersWithoutBody(method, 1);
  }

  /** As {@link #headersWithoutBody(String)}, on streams 1, 3, ... ({@code streams} of them). */
  public static String headersWithoutBody(String method, int streams) {
    ByteArrayOutputStream block = new ByteArrayOutputStream();
    literal(block, ":method", "POST");
    literal(block, ":scheme", "http");
    literal(block, ":path", "/routesync.v1.Registry/" + method);
    literal(block, ":authority", "localhost");
    literal(block, "content-type", "application/grpc");
    literal(block, "te", "trailers");
    StringBuilder out = new StringBuilder(PREFACE).append(frame(4, 0, 0, ""));
    for (int i = 0; i < streams; i++) {
      out.append(frame(1, 0x4, 2 * i + 1, block.toString(StandardCharsets.ISO_8859_1)));
    }
    return out.toString();
  }

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
