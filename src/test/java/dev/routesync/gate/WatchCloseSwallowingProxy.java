package dev.routesync.gate;

import static org.awaitility.Awaitility.await;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A loopback TCP proxy in front of the CRUD mock for gate runs. The gate closes its watches cleanly
 * when it ends, often milliseconds after they opened, while the mock is still replaying objects
 * into them. A clean close then blocks the mock's event loop in {@code
 * WatchEventsListener.onClosed} for up to a minute (its sender waits for that same loop), and the
 * blocked-thread warnings spill into other tests' stderr. So once a connection has become a
 * websocket, nothing the client sends (only control frames: the close) reaches the mock, and when
 * the client goes, the mock's side stays open, read and discarded, until the test closes the proxy,
 * long after the replay ended.
 */
public final class WatchCloseSwallowingProxy implements AutoCloseable {

  private static final byte[] SWITCHING = "HTTP/1.1 101".getBytes(StandardCharsets.US_ASCII);

  private final Vertx vertx = Vertx.vertx();
  private final NetClient client = vertx.createNetClient();
  // Quiet this long, the mock has sent every event it had: no send can race the close.
  private static final Duration QUIET = Duration.ofMillis(200);

  private final Set<NetSocket> open = ConcurrentHashMap.newKeySet();
  private final AtomicLong lastMockBytesNanos = new AtomicLong(System.nanoTime());
  private final int targetPort;
  private final NetServer server;

  public WatchCloseSwallowingProxy(int targetPort) throws Exception {
    this.targetPort = targetPort;
    this.server =
        vertx
            .createNetServer()
            .connectHandler(this::accept)
            .listen(0, "127.0.0.1")
            .await(10, TimeUnit.SECONDS);
  }

  public String url() {
    return "http://127.0.0.1:" + server.actualPort();
  }

  private void accept(NetSocket in) {
    in.pause();
    open.add(in);
    client
        .connect(targetPort, "127.0.0.1")
        .onSuccess(
            out -> {
              open.add(out);
              AtomicBoolean websocket = new AtomicBoolean();
              AtomicBoolean clientGone = new AtomicBoolean();
              in.handler(
                  data -> {
                    if (!websocket.get()) {
                      out.write(data);
                    }
                  });
              out.handler(
                  data -> {
                    if (!websocket.get() && startsWith(data, SWITCHING)) {
                      websocket.set(true);
                    }
                    lastMockBytesNanos.set(System.nanoTime());
                    if (!clientGone.get()) {
                      in.write(data);
                    }
                  });
              in.closeHandler(
                  ignored -> {
                    clientGone.set(true);
                    open.remove(in);
                    if (!websocket.get()) {
                      out.close();
                    }
                  });
              out.closeHandler(
                  ignored -> {
                    open.remove(out);
                    in.close();
                  });
              in.resume();
            })
        .onFailure(error -> in.close());
  }

  private static boolean startsWith(Buffer data, byte[] prefix) {
    if (data.length() < prefix.length) {
      return false;
    }
    for (int i = 0; i < prefix.length; i++) {
      if (data.getByte(i) != prefix[i]) {
        return false;
      }
    }
    return true;
  }

  /**
   * Waits until the mock has sent nothing for {@link #QUIET} (a send it is still making when its
   * connection drops deadlocks its event loop the same way, in {@code onFailure}), then drops every
   * connection, the mock's sides too, and stops. Close before the mock.
   */
  @Override
  public void close() throws Exception {
    server.close().await(10, TimeUnit.SECONDS);
    await()
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> System.nanoTime() - lastMockBytesNanos.get() >= QUIET.toNanos());
    for (NetSocket socket : open) {
      socket.close();
    }
    vertx.close().await(10, TimeUnit.SECONDS);
  }
}
