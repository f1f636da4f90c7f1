package dev.routesync.serve;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http2.Http2ConnectionDecoder;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2FrameListener;
import io.netty.handler.codec.http2.Http2FrameListenerDecorator;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.net.HostAndPort;
import io.vertx.core.net.impl.ConnectionBase;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lets a request on the Unix socket through whatever authority it names. On a Unix socket the
 * authority means nothing, and clients send what they like: grpc-java the socket's path ({@code
 * /var/run/routesync/routesync.sock}), C-core clients (C++, Python) the path %-encoded, grpc-js and
 * curl {@code localhost}. Vert.x 5.0.7 parses it as a host and port, has no option to skip that,
 * and refuses what does not parse: a path gets {@code RST_STREAM(PROTOCOL_ERROR)} on HTTP/2 and a
 * 400 on HTTP/1.x; {@code %} makes its parser throw ({@code StringIndexOutOfBoundsException}). A
 * grpc-java xDS client, whose bootstrap names only {@code unix:///path}, cannot override it.
 *
 * <p>So, on the socket only, an authority that {@link HostAndPort#parseAuthority} (what Vert.x
 * checks with) cannot parse is replaced by {@code localhost} before Vert.x reads it: HTTP/2's
 * {@code :authority} and {@code host}, HTTP/1.x's {@code Host} (also when absent). Handlers then
 * see {@code localhost}; an authority that parses reaches them as sent. The TCP listener keeps
 * Vert.x's check, since there an authority is real.
 *
 * <p>This relies on Vert.x internals, and {@code AnyAuthorityVertxInternalsInteropTest} fails when
 * they change:
 *
 * <ul>
 *   <li>the {@link HttpConnection} handed to the server's connection handler is an {@code
 *       io.vertx.core.net.impl.ConnectionBase}, whose {@code channelHandlerContext()} is that of
 *       Vert.x's own Netty handler: for HTTP/2 a Netty {@link Http2ConnectionHandler}, whose
 *       decoder's frame listener is the connection; for HTTP/1.x the handler that turns decoded
 *       requests into Vert.x ones;
 *   <li>for HTTP/2, Vert.x calls the connection handler while Netty decodes the client's first
 *       SETTINGS frame, right after it made the connection the decoder's frame listener; the
 *       preface rule puts every HEADERS frame after that SETTINGS, so wrapping the listener then
 *       sees every request, even one that came in the same read as the preface;
 *   <li>for HTTP/1.x, Vert.x calls it as the first request reaches its h2c-upgrade check, before
 *       passing the request on, so a handler added just before Vert.x's sees every request. (An
 *       {@code Upgrade: h2c} request itself is taken by that check first; no client does that on a
 *       Unix socket.)
 * </ul>
 *
 * If the connection is no {@code ConnectionBase}, it is served as Vert.x alone would, and a warning
 * is logged once. Nothing here logs per request or counts anything a client controls.
 */
final class AnyAuthority {

  private static final Logger LOG = LoggerFactory.getLogger(AnyAuthority.class);

  /** What handlers see instead of an authority Vert.x cannot parse. */
  static final String LOCALHOST = "localhost";

  private static final AsciiString LOCALHOST_ASCII = AsciiString.cached(LOCALHOST);
  private static final AtomicBoolean WARNED = new AtomicBoolean();
  private static final HostHeaders HOST_HEADERS = new HostHeaders();

  private AnyAuthority() {}

  /**
   * Makes {@code connection} accept any authority. Call from the server's connection handler (on
   * the connection's event loop), before anything else there.
   */
  static void install(HttpConnection connection) {
    if (!(connection instanceof ConnectionBase base)) {
      warnOnce("the connection is a " + connection.getClass().getName() + ", no ConnectionBase");
      return;
    }
    ChannelHandlerContext vertx = base.channelHandlerContext();
    if (vertx.handler() instanceof Http2ConnectionHandler http2) {
      Http2ConnectionDecoder decoder = http2.decoder();
      Http2FrameListener listener = decoder.frameListener();
      if (!(listener instanceof Frames)) { // idempotent
        decoder.frameListener(new Frames(listener));
      }
    } else if (vertx.pipeline().get(HostHeaders.class) == null) {
      vertx.pipeline().addBefore(vertx.name(), "routesync-any-authority", HOST_HEADERS);
    }
  }

  /** Whether Vert.x 5.0.7 takes {@code authority} as a host and optional port. */
  static boolean parses(CharSequence authority) {
    try {
      return HostAndPort.parseAuthority(authority.toString(), -1) != null;
    } catch (RuntimeException e) {
      return false; // on most strings with a '%', 5.0.7 throws StringIndexOutOfBoundsException
    }
  }

  private static void warnOnce(String why) {
    if (WARNED.compareAndSet(false, true)) {
      LOG.warn(
          "the Unix socket cannot accept every :authority on this Vert.x ({}): clients that send"
              + " the socket path (grpc-java) or a %-encoded one (C-core) are refused",
          why);
    }
  }

  /** HTTP/2: rewrites a request's authority before Vert.x's frame listener reads it. */
  private static final class Frames extends Http2FrameListenerDecorator {

    Frames(Http2FrameListener listener) {
      super(listener);
    }

    @Override
    public void onHeadersRead(
        ChannelHandlerContext ctx, int stream, Http2Headers headers, int padding, boolean end)
        throws Http2Exception {
      readable(headers);
      super.onHeadersRead(ctx, stream, headers, padding, end);
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
        boolean end)
        throws Http2Exception {
      readable(headers);
      super.onHeadersRead(ctx, stream, headers, dependency, weight, exclusive, padding, end);
    }

    private static void readable(Http2Headers headers) {
      CharSequence authority = headers.authority();
      if (authority != null && !parses(authority)) {
        headers.authority(LOCALHOST_ASCII);
      }
      CharSequence host = headers.get(HttpHeaderNames.HOST);
      if (host != null && !parses(host)) {
        headers.set(HttpHeaderNames.HOST, LOCALHOST_ASCII);
      }
    }
  }

  /** HTTP/1.x: rewrites a decoded request's {@code Host} before Vert.x's handler reads it. */
  @ChannelHandler.Sharable
  private static final class HostHeaders extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object message) {
      if (message instanceof HttpRequest request && request.decoderResult().isSuccess()) {
        String host = request.headers().get(HttpHeaderNames.HOST);
        if (host == null || !parses(host)) {
          request.headers().set(HttpHeaderNames.HOST, LOCALHOST_ASCII);
        }
      }
      ctx.fireChannelRead(message);
    }
  }
}
