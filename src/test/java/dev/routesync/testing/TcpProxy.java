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
 */
public final class TcpProxy implements AutoCloseable {

  private final Vertx vertx = Vertx.vertx();
  private final NetClient client = vertx.createNetClient();
  private final Set<NetSocket> open = ConcurrentHashMap.newKeySet();
  private final int port;
  private NetServer server;
  private volatile int targetPort;

  public TcpProxy(int targetPort) throws Exception {
    this.targetPort = targetPort;
    this.server = listen(0);
    this.port = server.actualPort();
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
              in.pipeTo(out);
              out.pipeTo(in);
            })
        .onFailure(error -> in.close());
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
    for (NetSocket socket : open) {
      socket.close();
    }
  }

  /** Listens again on the same port, forwarding new connections to {@code newTargetPort}. */
  public synchronized void restore(int newTargetPort) throws Exception {
    targetPort = newTargetPort;
    if (server == null) {
      server = listen(port);
    }
  }

  @Override
  public void close() throws Exception {
    cut();
    vertx.close().await(10, TimeUnit.SECONDS);
  }
}
