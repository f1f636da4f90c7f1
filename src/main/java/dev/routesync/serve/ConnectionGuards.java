package dev.routesync.serve;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.InternetProtocolFamily;
import io.vertx.core.datagram.DatagramSocketOptions;
import io.vertx.core.net.ClientOptionsBase;
import io.vertx.core.net.NetServerOptions;
import io.vertx.core.transport.Transport;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.function.Function;

/**
 * The accept hook of one Vert.x instance's listeners. Vert.x tells a connection's protocol only
 * once its first bytes have arrived, and has no connection cap, so the count, the cap and the
 * timers start lower, at Netty's accept: the transport this class wraps adds a handler to every
 * server channel, which hands each accepted connection to its listener's {@link ConnectionGuard}
 * before Vert.x sees it. Build the Vert.x with {@link #transport()}; listeners then register by
 * {@link Listener} kind (the Unix socket) or TCP port. The guards also carry the socket's {@link
 * PeerPolicy}, since whether it can be enforced depends on the transport chosen here.
 */
public final class ConnectionGuards {

  private static final Object UNIX = new Object();

  private final boolean enabled;
  private final PeerPolicy peers;
  private final Transport preferred;
  private final Function<Channel, Peer> credentials;
  private final Map<Object, ConnectionGuard> guards = new ConcurrentHashMap<>();
  private volatile boolean installed;
  private volatile Transport chosen;

  private ConnectionGuards(
      boolean enabled, PeerPolicy peers, Transport preferred, Function<Channel, Peer> credentials) {
    this.enabled = enabled;
    this.peers = peers;
    this.preferred = preferred;
    this.credentials = credentials;
  }

  /** Guards for a Vert.x built with {@link #transport()}, letting any peer in. */
  public static ConnectionGuards create() {
    return create(PeerPolicy.ANY);
  }

  /**
   * Guards for a Vert.x built with {@link #transport()}, which also keep the socket to the peers
   * {@code peers} allows.
   */
  public static ConnectionGuards create(PeerPolicy peers) {
    return new ConnectionGuards(true, peers, Transport.nativeTransport(), Peer::of);
  }

  /**
   * As {@link #create(PeerPolicy)}, on {@code preferred} when it is available (else NIO): a test's
   * way to run the guards on NIO, where the kernel's peer credentials cannot be read.
   */
  public static ConnectionGuards create(PeerPolicy peers, Transport preferred) {
    return new ConnectionGuards(true, peers, preferred, Peer::of);
  }

  /**
   * As {@link #create()}, with each socket connection's credentials from {@code credentials}
   * instead of the kernel: a test's way to play several uids from one process.
   */
  static ConnectionGuards withCredentials(Function<Channel, Peer> credentials) {
    return new ConnectionGuards(true, PeerPolicy.ANY, Transport.nativeTransport(), credentials);
  }

  /** No limits at all: for benchmarks and tests that build their own Vert.x. */
  public static ConnectionGuards none() {
    return new ConnectionGuards(false, PeerPolicy.ANY, Transport.nativeTransport(), Peer::of);
  }

  /** The native transport (epoll) when available, else NIO, with the accept hook. */
  public Transport transport() {
    Transport base = preferred;
    Transport picked = base != null && base.available() ? base : Transport.NIO;
    chosen = picked;
    return new Guarded(picked, new Hooked(picked.implementation()));
  }

  PeerPolicy peers() {
    return peers;
  }

  Function<Channel, Peer> credentials() {
    return credentials;
  }

  /**
   * Whether the transport {@link #transport()} chose reads peer credentials: only epoll's domain
   * socket channel has {@code SO_PEERCRED} in Netty (NIO's has none). False before it was called.
   */
  boolean readsPeerCredentials() {
    Transport picked = chosen;
    return picked != null && picked == Transport.EPOLL;
  }

  /** The chosen transport's name, for messages ({@code epoll}, {@code nio}; "none" before). */
  String transportName() {
    Transport picked = chosen;
    return picked == null ? "none" : picked.name();
  }

  boolean enabled() {
    return enabled;
  }

  /** True once a listener of this Vert.x has been bound through {@link #transport()}. */
  boolean installed() {
    return installed;
  }

  void registerUnix(ConnectionGuard guard) {
    guards.put(UNIX, guard);
  }

  void registerTcp(int port, ConnectionGuard guard) {
    guards.put(port, guard);
  }

  /**
   * Binds {@code server} to {@code host:port} with {@code guard} (null: none) watching its
   * connections: registered before the bind, for a fixed port, and again under the bound port (port
   * 0 is known only then). Fails when a guard is given but this Vert.x was not built with {@link
   * #transport()}, which alone can enforce it.
   */
  io.vertx.core.Future<Integer> listenTcp(
      io.vertx.core.http.HttpServer server, String host, int port, ConnectionGuard guard) {
    if (guard != null) {
      registerTcp(port, guard);
    }
    return server
        .listen(port, host)
        .compose(
            bound -> {
              if (guard == null) {
                return io.vertx.core.Future.succeededFuture(bound.actualPort());
              }
              registerTcp(bound.actualPort(), guard);
              return installed()
                  ? io.vertx.core.Future.succeededFuture(bound.actualPort())
                  : io.vertx.core.Future.failedFuture(
                      new IllegalStateException(
                          "connection limits need a Vert.x built with"
                              + " ConnectionGuards.transport()"));
            });
  }

  private ConnectionGuard guardFor(SocketAddress listening) {
    Object key = listening instanceof InetSocketAddress inet ? inet.getPort() : UNIX;
    return guards.get(key);
  }

  /** Sees every accepted connection of a server channel, before Vert.x's initializer does. */
  @ChannelHandler.Sharable
  private final class Acceptor extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object message) {
      if (message instanceof Channel child) {
        ConnectionGuard guard = guardFor(ctx.channel().localAddress());
        if (guard != null && !guard.admit(child)) {
          child.unsafe().closeForcibly(); // as Netty's acceptor does with a child it cannot take
          return;
        }
      }
      ctx.fireChannelRead(message);
    }
  }

  private record Guarded(Transport base, io.vertx.core.spi.transport.Transport implementation)
      implements Transport {
    @Override
    public String name() {
      return base.name();
    }

    @Override
    public boolean available() {
      return base.available();
    }

    @Override
    public Throwable unavailabilityCause() {
      return base.unavailabilityCause();
    }
  }

  /** The chosen transport, unchanged except that server bootstraps get the {@link Acceptor}. */
  private final class Hooked implements io.vertx.core.spi.transport.Transport {
    private final io.vertx.core.spi.transport.Transport base;
    private final Acceptor acceptor = new Acceptor();

    Hooked(io.vertx.core.spi.transport.Transport base) {
      this.base = base;
    }

    @Override
    public void configure(
        NetServerOptions options, boolean domainSocket, ServerBootstrap bootstrap) {
      base.configure(options, domainSocket, bootstrap);
      bootstrap.handler(acceptor);
      installed = true;
    }

    @Override
    public boolean supportsDomainSockets() {
      return base.supportsDomainSockets();
    }

    @Override
    public boolean supportFileRegion() {
      return base.supportFileRegion();
    }

    @Override
    public boolean isAvailable() {
      return base.isAvailable();
    }

    @Override
    public Throwable unavailabilityCause() {
      return base.unavailabilityCause();
    }

    @Override
    public SocketAddress convert(io.vertx.core.net.SocketAddress address) {
      return base.convert(address);
    }

    @Override
    public io.vertx.core.net.SocketAddress convert(SocketAddress address) {
      return base.convert(address);
    }

    @Override
    public IoHandlerFactory ioHandlerFactory() {
      return base.ioHandlerFactory();
    }

    @Override
    public EventLoopGroup eventLoopGroup(
        int type, int threads, ThreadFactory threadFactory, int ioRatio) {
      return base.eventLoopGroup(type, threads, threadFactory, ioRatio);
    }

    @Override
    public DatagramChannel datagramChannel() {
      return base.datagramChannel();
    }

    @Override
    public DatagramChannel datagramChannel(InternetProtocolFamily family) {
      return base.datagramChannel(family);
    }

    @Override
    public ChannelFactory<? extends Channel> channelFactory(boolean domainSocket) {
      return base.channelFactory(domainSocket);
    }

    @Override
    public ChannelFactory<? extends ServerChannel> serverChannelFactory(boolean domainSocket) {
      return base.serverChannelFactory(domainSocket);
    }

    @Override
    public void configure(DatagramChannel channel, DatagramSocketOptions options) {
      base.configure(channel, options);
    }

    @Override
    public void configure(
        ClientOptionsBase options, int connectTimeout, boolean domainSocket, Bootstrap bootstrap) {
      base.configure(options, connectTimeout, domainSocket, bootstrap);
    }
  }
}
