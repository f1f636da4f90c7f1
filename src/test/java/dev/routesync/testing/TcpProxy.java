package dev.routesync.testing;

import io.vertx.core.Vertx;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetSocket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A loopback TCP proxy standing in for "the API server's address". Cutting it stops listening and
 * drops every connection, as a stopped server does; pointing it at another mock server afterwards
 * is an API server restart with different contents, on the same address, as the agent sees it.
 *
 * <p>{@link #blackHoleOpenConnections} is the hang a watchdog is for: the connections stay open and
 * every byte on them, either way, is dropped, closes too (no FIN, no RST reaches the other side),
 * while new connections are forwarded as before. That is a stuck path rather than a dead server: a
 * conntrack or NAT entry lost, a load balancer that moved its backend, one wedged proxy instance
 * behind a VIP. Neither end learns anything; only a new connection gets through.
 */
public final class TcpProxy implements AutoCloseable {

  private final Vertx vertx = Vertx.vertx();
  private final NetClient client = vertx.createNetClient();
  private final Set<NetSocket> open = ConcurrentHashMap.newKeySet();
  private final Set<Link> links = ConcurrentHashMap.newKeySet();
  private final int port;
  private NetServer server;
  private volatile int targetPort;

  public TcpProxy(int targetPort) throws Exception {
    this.targetPort = targetPort;
    this.server = listenBelowTheEphemeralRange();
    this.port = server.actualPort();
  }

  /**
   * A port below Linux's ephemeral range (32768-60999), since {@link #restore} listens on it again
   * after a cut: a port the kernel handed out could meanwhile become some outgoing connection's
   * source port ("Address already in use", seen in CI with other test JVMs on the machine).
   */
  private NetServer listenBelowTheEphemeralRange() throws Exception {
    java.util.Random random = new java.util.Random();
    Exception last = null;
    for (int attempt = 0; attempt < 50; attempt++) {
      try {
        return listen(20_000 + random.nextInt(12_000));
      } catch (Exception e) {
        last = e; // taken: another
      }
    }
    throw last;
  }

  private NetServer listen(int onPort) throws Exception {
    return vertx
        .createNetServer()
        .connectHandler(this::accept)
        .listen(onPort, "127.0.0.1")
        .await(10, TimeUnit.SECONDS);
  }

  private void accept(NetSocket in) {
    in.pause();
    track(in);
    client
        .connect(targetPort, "127.0.0.1")
        .onSuccess(
            out -> {
              track(out);
              Link link = new Link();
              links.add(link);
              forward(in, out, link);
              forward(out, in, link);
              in.resume();
            })
        .onFailure(error -> in.close());
  }

  /** One proxied connection (both directions): whether it has been black-holed. */
  private static final class Link {
    volatile boolean blackHoled;
  }

  /** {@code from}'s bytes to {@code to}, with backpressure, as a pipe, unless black-holed. */
  private void forward(NetSocket from, NetSocket to, Link link) {
    from.handler(
        data -> {
          if (link.blackHoled) {
            return; // read and dropped: the sender's writes succeed and go nowhere
          }
          to.write(data);
          if (to.writeQueueFull()) {
            from.pause();
            to.drainHandler(ignored -> from.resume());
          }
        });
    from.endHandler(
        ignored -> {
          if (!link.blackHoled) {
            to.close();
          }
        });
    from.closeHandler(
        ignored -> {
          open.remove(from);
          if (!link.blackHoled) {
            to.close();
          } // else the other side never learns: the connection just stays quiet
          if (!open.contains(to)) {
            links.remove(link);
          }
        });
  }

  /**
   * Every connection open now stays open and silent: bytes in both directions, and closes, are
   * dropped. New connections are forwarded as before. Undone only by {@link #cut} (which closes
   * them all).
   */
  public void blackHoleOpenConnections() {
    for (Link link : links) {
      link.blackHoled = true;
    }
  }

  private void track(NetSocket socket) {
    open.add(socket);
    socket.closeHandler(ignored -> open.remove(socket));
  }

  public int port() {
    return port;
  }

  public String url() {
    return "http://127.0.0.1:" + port();
  }

  /** Stops listening (connections are refused) and drops every open connection. */
  public synchronized void cut() throws Exception {
    if (server != null) {
      server.close().await(10, TimeUnit.SECONDS);
      server = null;
    }
    java.util.List<io.vertx.core.Future<Void>> closed = new java.util.ArrayList<>();
    for (NetSocket socket : open) {
      closed.add(socket.close());
    }
    links.clear();
    // Closed before the port is listened on again, so no connection of the old listener's holds it.
    io.vertx.core.Future.join(closed).await(10, TimeUnit.SECONDS);
  }

  /**
   * Listens again on the same port, forwarding new connections to {@code newTargetPort}. A bind
   * refused while the kernel still tears the old listener's connections down is tried again, for up
   * to 5 s (two CI runs beside other test JVMs failed here with "Address already in use").
   */
  public synchronized void restore(int newTargetPort) throws Exception {
    targetPort = newTargetPort;
    if (server != null) {
      return;
    }
    org.awaitility.Awaitility.await("listening again on " + port)
        .atMost(java.time.Duration.ofSeconds(5))
        .pollInterval(java.time.Duration.ofMillis(50))
        .ignoreExceptions()
        .until(
            () -> {
              server = listen(port);
              return true;
            });
  }

  @Override
  public void close() throws Exception {
    cut();
    vertx.close().await(10, TimeUnit.SECONDS);
  }
}
