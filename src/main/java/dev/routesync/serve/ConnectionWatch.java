package dev.routesync.serve;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseEncoder;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2ConnectionAdapter;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2Stream;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.IntConsumer;

/**
 * The timers of one connection, from accept to close, as Netty handlers in its pipeline:
 *
 * <ul>
 *   <li><b>header timeout</b>: the first request must be complete within it of the accept, and on
 *       HTTP/1 every later request within it of its first byte;
 *   <li><b>idle timeout</b>: with nothing in flight (HTTP/1: no request awaiting its response;
 *       HTTP/2: no open stream) for that long, the connection is closed. An open Watch stream is in
 *       flight, so it is never cut, however long nothing is published. (Vert.x's own idle timeout
 *       counts bytes, so it would cut such a stream, and a client sending PINGs would evade it.)
 * </ul>
 *
 * <p>The protocol is known only after the first bytes (Vert.x tells HTTP/1 from the HTTP/2
 * preface), so the first handler, next to the socket, watches the pipeline take shape and then
 * hooks the HTTP/1 codec or the HTTP/2 connection. Threading: all on the connection's event loop,
 * but {@link #drain}, which hops onto it.
 */
final class ConnectionWatch {

  private final Channel channel;
  private final ConnectionLimits limits;
  private final Consumer<CloseReason> closedBecause;
  private final IntConsumer streams; // HTTP/2 streams opened (+n) and closed (-1)
  private int http1InFlight;
  private boolean http1Hooked;
  private Http2Connection http2;
  private ScheduledFuture<?> headerTimer;
  private ScheduledFuture<?> idleTimer;
  private boolean draining;
  private int fed; // bytes passed one at a time while Vert.x chose the protocol
  private static final int PREFACE_BYTES = 24; // "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
  // Read by the listener's acceptor loop when it looks for a connection to evict: since when
  // nothing has been in flight (System.nanoTime()), or BUSY. A connection is idle from its accept
  // until its first request is complete: half-sent headers are no request yet.
  private volatile long idleSince = System.nanoTime();
  private static final long BUSY = Long.MAX_VALUE;

  ConnectionWatch(Channel channel, ConnectionLimits limits, Consumer<CloseReason> closedBecause) {
    this(channel, limits, closedBecause, delta -> {});
  }

  /** Also reporting the connection's HTTP/2 streams as they open and close to {@code streams}. */
  ConnectionWatch(
      Channel channel,
      ConnectionLimits limits,
      Consumer<CloseReason> closedBecause,
      IntConsumer streams) {
    this.channel = channel;
    this.limits = limits;
    this.closedBecause = closedBecause;
    this.streams = streams;
  }

  /** Before the channel is registered: Netty runs the handler's callbacks once it is. */
  void install() {
    channel.pipeline().addFirst("routesync-connection", new Bytes());
  }

  void drain() {
    channel
        .eventLoop()
        .execute(
            () -> {
              draining = true;
              if (!busy()) {
                close(CloseReason.DRAIN);
              }
            });
  }

  /**
   * Since when this connection has had nothing in flight ({@link System#nanoTime()}), or {@link
   * Long#MAX_VALUE} while a request is being answered. Any thread.
   */
  long idleSince() {
    return idleSince;
  }

  /** Closes the connection to make room for a new one; hops onto its event loop. */
  void evict() {
    channel.eventLoop().execute(() -> close(CloseReason.EVICTED));
  }

  private boolean busy() {
    return http2 != null ? http2.numActiveStreams() > 0 : http1InFlight > 0;
  }

  private void requestStarted() {
    cancelIdle();
    if (headerTimer == null) {
      headerTimer = schedule(limits.headerTimeout().toNanos(), CloseReason.HEADER_TIMEOUT);
    }
  }

  private void requestArrived() {
    idleSince = BUSY;
    cancelHeader();
    cancelIdle();
  }

  private void nothingInFlight() {
    idleSince = System.nanoTime();
    cancelHeader();
    if (draining) {
      close(CloseReason.DRAIN);
    } else if (idleTimer == null) {
      idleTimer = schedule(limits.idleTimeout().toNanos(), CloseReason.IDLE);
    }
  }

  private ScheduledFuture<?> schedule(long nanos, CloseReason reason) {
    return channel.eventLoop().schedule(() -> close(reason), nanos, TimeUnit.NANOSECONDS);
  }

  private void close(CloseReason reason) {
    cancelHeader();
    cancelIdle();
    if (channel.isOpen()) {
      closedBecause.accept(reason);
      channel.close(); // on HTTP/2, Netty sends GOAWAY first
    }
  }

  private void cancelHeader() {
    if (headerTimer != null) {
      headerTimer.cancel(false);
      headerTimer = null;
    }
  }

  private void cancelIdle() {
    if (idleTimer != null) {
      idleTimer.cancel(false);
      idleTimer = null;
    }
  }

  // After each read the pipeline may have become HTTP/1 or HTTP/2 (or switched by h2c upgrade).
  private void hook(ChannelPipeline pipeline) {
    if (http2 == null) {
      Http2ConnectionHandler handler = pipeline.get(Http2ConnectionHandler.class);
      if (handler != null) {
        http2 = handler.connection();
        http1InFlight = 0;
        http2.addListener(new Streams());
        // Streams opened in the read that built the codec, before the listener: counted here,
        // their close reaches the listener like any other's.
        if (http2.numActiveStreams() > 0) {
          streams.accept(http2.numActiveStreams());
        }
        if (busy()) {
          requestArrived();
        } else if (headerTimer == null) {
          nothingInFlight();
        }
        return;
      }
    }
    if (!http1Hooked && http2 == null) {
      String encoder = encoderName(pipeline);
      if (encoder != null) {
        http1Hooked = true;
        pipeline.addAfter(encoder, "routesync-requests", new Requests());
      }
    }
  }

  private boolean hooked() {
    return http1Hooked || http2 != null;
  }

  private static String encoderName(ChannelPipeline pipeline) {
    var context = pipeline.context(HttpResponseEncoder.class);
    return context == null ? null : context.name();
  }

  /** Next to the socket: sees raw bytes, so it knows when a request has started. */
  private final class Bytes extends ChannelInboundHandlerAdapter {
    @Override
    public void channelActive(ChannelHandlerContext ctx) {
      requestStarted(); // the first request's clock starts at accept
      ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object message) {
      // On HTTP/1 the first byte of a request starts its clock; HTTP/2 frames outside a stream
      // (PING, SETTINGS) are no request, and an HTTP/2 connection answers to the idle rule.
      if (http2 == null && !busy()) {
        requestStarted();
      }
      if (message instanceof ByteBuf bytes) {
        // Vert.x picks HTTP/1 or HTTP/2 from the first bytes (HTTP/1 at the first byte that is
        // not the HTTP/2 preface's, HTTP/2 at the preface's last) and builds the codec then. Feed
        // it one byte at a time until it has, hook the codec, then pass the rest: the first
        // request, and every stream of the first read, is then seen like every later one (the
        // per-uid stream count needs the streams opened in the preface's own read).
        while (!hooked() && bytes.readableBytes() > 1 && fed < PREFACE_BYTES) {
          ctx.fireChannelRead(bytes.readRetainedSlice(1));
          fed++;
          hook(ctx.pipeline());
        }
      }
      ctx.fireChannelRead(message);
      hook(ctx.pipeline());
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      cancelHeader();
      cancelIdle();
      ctx.fireChannelInactive();
    }
  }

  /** Between the HTTP/1 codec and Vert.x: a decoded request in, the end of its response out. */
  private final class Requests extends ChannelDuplexHandler {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object message) {
      if (message instanceof HttpRequest) {
        http1InFlight++;
        requestArrived();
      }
      ctx.fireChannelRead(message);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object message, ChannelPromise promise) {
      boolean last = message instanceof LastHttpContent;
      ctx.write(message, promise);
      if (last && http1InFlight > 0 && --http1InFlight == 0 && http2 == null) {
        nothingInFlight();
      }
    }
  }

  private final class Streams extends Http2ConnectionAdapter {
    @Override
    public void onStreamActive(Http2Stream stream) {
      streams.accept(1);
      requestArrived();
    }

    @Override
    public void onStreamClosed(Http2Stream stream) {
      streams.accept(-1);
      // Netty counts the stream out after telling its listeners: look once it has.
      channel
          .eventLoop()
          .execute(
              () -> {
                if (channel.isOpen() && !busy()) {
                  nothingInFlight();
                }
              });
    }
  }
}
