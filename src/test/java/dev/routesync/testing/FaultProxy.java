package dev.routesync.testing;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetSocket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A loopback HTTP/1.1-aware proxy standing in for the API server's address, with the faults a real
 * one shows: answers of 429 Too Many Requests ({@code Retry-After: 1}) or 500 with a Kubernetes
 * {@code Status} body instead of forwarding, black-holed connections (open, forwarding nothing),
 * refused connections, and a restart onto another server on the same address.
 *
 * <p>How fabric8 talks to it here: lists are plain HTTP/1.1 GETs on keep-alive connections; watches
 * are an HTTP/1.1 GET with {@code Upgrade: websocket}. The proxy parses only what the client sends,
 * request by request (the client does not pipeline, so each request arrives after the previous
 * response), and judges each request, the websocket upgrade included, before it reaches the server.
 * A faulted request is answered by the proxy with {@code Connection: close}. Once a connection is
 * upgraded it is relayed as raw bytes. Responses are always relayed as they come, so fabric8's
 * fallback, a plain watch (a GET whose chunked response never ends), passes too; the black hole and
 * the orphans below apply to upgraded connections only, the only watches fabric8 opens here (it
 * falls back only when an upgrade is answered 200 or 503, which this proxy never sends).
 *
 * <p>The CRUD mock blocks its event loop for up to a minute when a watch connection closes, cleanly
 * or not, while it is sending on it (STACK-NOTES). So the mock never sees a watch close from here
 * at an arbitrary moment: nothing the client sends on an upgraded connection reaches the mock (only
 * control frames travel that way: pongs and the close), and when the client side of a watch goes,
 * the mock's side stays open, read and discarded, as an <em>orphan</em>, until the proxy closes.
 * (Closing orphans once the mock had sent nothing on them for a while was tried: on a loaded
 * machine the mock's senders lag by seconds, a send was still pending, and the mock's event loop
 * stalled for 30 s.)
 */
public final class FaultProxy implements AutoCloseable {

  /** What a faulted request is answered with. */
  public enum Fault {
    /** 429 with {@code Retry-After: 1}, as API Priority and Fairness answers. */
    TOO_MANY_REQUESTS,
    /** 500 InternalError. */
    SERVER_ERROR
  }

  private static final int MAX_HEAD = 64 * 1024;
  private static final byte[] END_OF_HEAD = "\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

  private final Vertx vertx = Vertx.vertx();
  private final NetClient client = vertx.createNetClient();
  private final Set<Relay> relays = ConcurrentHashMap.newKeySet();
  private final int port;
  private final AtomicLong requests = new AtomicLong();
  private final AtomicLong upgrades = new AtomicLong();
  private final AtomicLong tooManyRequests = new AtomicLong();
  private final AtomicLong serverErrors = new AtomicLong();
  private final AtomicLong discarded = new AtomicLong();
  private final NetServer server;
  private volatile boolean refusing;
  private volatile boolean holdUpgrades;
  private final AtomicLong held = new AtomicLong();
  private volatile int targetPort;
  private volatile Plan plan;

  /** A fault window: each request is answered with {@code fault} with probability {@code rate}. */
  private record Plan(Fault fault, double rate, Random random) {

    synchronized boolean hits() {
      return rate >= 1 || random.nextDouble() < rate;
    }
  }

  public FaultProxy(int targetPort) throws Exception {
    this.targetPort = targetPort;
    this.server = listen(0); // for good: refusing closes new connections at accept
    this.port = server.actualPort();
  }

  private NetServer listen(int onPort) throws Exception {
    return vertx
        .createNetServer()
        .connectHandler(
            in -> {
              if (refusing) {
                in.close();
              } else {
                new Relay(in).start();
              }
            })
        .listen(onPort, "127.0.0.1")
        .await(10, TimeUnit.SECONDS);
  }

  public int port() {
    return port;
  }

  public String url() {
    return "http://127.0.0.1:" + port;
  }

  /**
   * From now on each request (a list, a watch's upgrade) is answered with {@code fault} with
   * probability {@code rate} (1 for every request), drawn from {@code seed}. Requests already
   * forwarded, and open watches, are left alone.
   */
  public void failRequests(Fault fault, double rate, long seed) {
    plan = new Plan(fault, rate, new Random(seed));
  }

  /**
   * While {@code held}, a watch's upgrade request on a new connection is neither forwarded nor
   * answered: the connection stays open and silent, as a stuck proxy leaves a handshake.
   */
  public void holdUpgrades(boolean held) {
    holdUpgrades = held;
  }

  /** Upgrade requests held so far. */
  public long heldUpgrades() {
    return held.get();
  }

  /** Forwards every request again. */
  public void stopFailing() {
    plan = null;
  }

  /**
   * Every connection open now keeps its TCP connection on both sides but forwards nothing from here
   * on, as a stuck proxy or a server that stopped sending does; new connections are forwarded as
   * usual.
   */
  public int blackHole() {
    int count = 0;
    for (Relay relay : relays) {
      if (relay.clientGone) {
        continue;
      }
      if (relay.upgraded) {
        relay.blackHoled = true;
        count++;
      } else {
        relay.in.close(); // an idle keep-alive connection: the next list connects afresh
      }
    }
    return count;
  }

  /**
   * New connections are closed as soon as they are accepted, as by a server that is not there; open
   * ones stay as they are. (The listener itself stays: closing a Vert.x server closes every
   * connection it accepted, and its port was not always free again at once.)
   */
  public void refuse() {
    refusing = true;
  }

  /** Drops the client side of every connection at once (the server sides of watches stay). */
  public void dropClients() {
    for (Relay relay : relays) {
      relay.in.close();
    }
  }

  /** A stopped server, as the client sees it: connections refused and every one dropped. */
  public void cut() {
    refuse();
    dropClients();
  }

  /** Accepts connections again, forwarding new ones to {@code newTargetPort}. */
  public void restore(int newTargetPort) {
    targetPort = newTargetPort;
    refusing = false;
  }

  /** Watches whose client has gone while the server's side is kept open (see the class comment). */
  public int orphans() {
    int orphans = 0;
    for (Relay relay : relays) {
      if (relay.clientGone && relay.upgraded) {
        orphans++;
      }
    }
    return orphans;
  }

  /** Requests seen (lists, watches, anything else). */
  public long requests() {
    return requests.get();
  }

  /** Websocket upgrades forwarded to the server. */
  public long upgrades() {
    return upgrades.get();
  }

  /** Requests answered by the proxy with {@code fault}. */
  public long answered(Fault fault) {
    return switch (fault) {
      case TOO_MANY_REQUESTS -> tooManyRequests.get();
      case SERVER_ERROR -> serverErrors.get();
    };
  }

  /** Bytes the server sent that went nowhere (black-holed, or an orphan's). */
  public long discardedBytes() {
    return discarded.get();
  }

  /** Connections whose client side is open. */
  public int openClients() {
    int open = 0;
    for (Relay relay : relays) {
      if (!relay.clientGone) {
        open++;
      }
    }
    return open;
  }

  @Override
  public void close() throws Exception {
    refuse();
    server.close().await(10, TimeUnit.SECONDS);
    for (Relay relay : relays) {
      relay.in.close();
      relay.closeServerSide();
    }
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  /** The answer the API server gives a faulted request. */
  static String response(Fault fault) {
    String status;
    String body;
    String extraHeader;
    if (fault == Fault.TOO_MANY_REQUESTS) {
      status = "429 Too Many Requests";
      extraHeader = "Retry-After: 1\r\n";
      body =
          "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
              + "\"message\":\"Too many requests, please try again later.\","
              + "\"reason\":\"TooManyRequests\",\"details\":{\"retryAfterSeconds\":1},"
              + "\"code\":429}";
    } else {
      status = "500 Internal Server Error";
      extraHeader = "";
      body =
          "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
              + "\"message\":\"Internal error occurred: injected by the test's FaultProxy\","
              + "\"reason\":\"InternalError\",\"details\":{\"causes\":[{\"message\":\"injected\"}]},"
              + "\"code\":500}";
    }
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    return "HTTP/1.1 "
        + status
        + "\r\n"
        + extraHeader
        + "Content-Type: application/json\r\n"
        + "Content-Length: "
        + bytes.length
        + "\r\nConnection: close\r\n\r\n"
        + body;
  }

  /**
   * One client connection and, once a request is forwarded, its connection to the server.
   * Everything but the flags runs on the connection's event loop (the server side is connected from
   * it, so it shares the loop).
   */
  private final class Relay {

    final NetSocket in;
    NetSocket out;
    boolean connecting;
    final List<Buffer> queued = new ArrayList<>();
    Buffer head = Buffer.buffer();
    long bodyLeft;
    // Raw from here on: an upgraded connection, or a body (or watch) of unknown length.
    boolean raw;
    volatile boolean upgraded;
    volatile boolean blackHoled;
    volatile boolean clientGone;

    Relay(NetSocket in) {
      this.in = in;
    }

    void start() {
      relays.add(this);
      in.handler(this::fromClient);
      in.closeHandler(ignored -> clientClosed());
      in.exceptionHandler(ignored -> in.close());
    }

    private void fromClient(Buffer data) {
      if (blackHoled || upgraded) {
        return; // swallowed: see the class comment
      }
      if (raw) {
        forward(data);
        return;
      }
      Buffer rest = data;
      while (rest.length() > 0 && !clientGone) {
        if (bodyLeft > 0) {
          int take = (int) Math.min(bodyLeft, rest.length());
          forward(rest.getBuffer(0, take));
          bodyLeft -= take;
          rest = rest.getBuffer(take, rest.length());
          continue;
        }
        head.appendBuffer(rest);
        rest = Buffer.buffer();
        int end = indexOf(head, END_OF_HEAD);
        if (end < 0) {
          if (head.length() > MAX_HEAD) {
            in.close();
          }
          return;
        }
        Buffer request = head.getBuffer(0, end + END_OF_HEAD.length);
        rest = head.getBuffer(end + END_OF_HEAD.length, head.length());
        head = Buffer.buffer();
        if (!request(request)) {
          return;
        }
      }
    }

    /** Judges one request head; false when the proxy answered it and the connection ends. */
    private boolean request(Buffer request) {
      requests.incrementAndGet();
      Plan current = plan;
      if (current != null && current.hits()) {
        (current.fault() == Fault.TOO_MANY_REQUESTS ? tooManyRequests : serverErrors)
            .incrementAndGet();
        in.write(Buffer.buffer(response(current.fault()))).onComplete(done -> in.close());
        clientGone = true; // nothing more from this client is read
        return false;
      }
      String text = request.toString(StandardCharsets.ISO_8859_1);
      String lower = text.toLowerCase(Locale.ROOT);
      if (holdUpgrades && lower.contains("\r\nupgrade:")) {
        held.incrementAndGet();
        upgraded = true;
        blackHoled = true; // never forwarded, never answered
        return false;
      }
      forward(request);
      if (lower.contains("\r\nupgrade:")) {
        upgrades.incrementAndGet();
        upgraded = true;
      } else if (lower.contains("\r\ntransfer-encoding:")) {
        raw = true;
      } else {
        bodyLeft = contentLength(lower);
      }
      return true;
    }

    private void forward(Buffer data) {
      if (out != null) {
        out.write(data);
        return;
      }
      queued.add(data);
      if (connecting) {
        return;
      }
      connecting = true;
      in.pause();
      client
          .connect(targetPort, "127.0.0.1")
          .onSuccess(
              socket -> {
                out = socket;
                out.handler(this::fromServer);
                out.closeHandler(ignored -> in.close());
                out.exceptionHandler(ignored -> out.close());
                for (Buffer each : queued) {
                  out.write(each);
                }
                queued.clear();
                if (clientGone && !upgraded) {
                  out.close();
                }
                in.resume();
              })
          .onFailure(error -> in.close());
    }

    private void fromServer(Buffer data) {
      if (!blackHoled && !clientGone) {
        in.write(data);
      } else {
        discarded.addAndGet(data.length());
      }
    }

    private void clientClosed() {
      clientGone = true;
      if (out == null) {
        relays.remove(this);
      } else if (!upgraded) {
        closeServerSide(); // a plain request: no watch for the mock to block on
      } // an upgraded one stays as an orphan
    }

    void closeServerSide() {
      relays.remove(this);
      if (out != null) {
        out.close();
      }
    }
  }

  private static long contentLength(String lowerHead) {
    int at = lowerHead.indexOf("\r\ncontent-length:");
    if (at < 0) {
      return 0;
    }
    int start = at + "\r\ncontent-length:".length();
    int end = lowerHead.indexOf("\r\n", start);
    try {
      return Long.parseLong(lowerHead.substring(start, end).trim());
    } catch (RuntimeException e) {
      return 0;
    }
  }

  private static int indexOf(Buffer buffer, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= buffer.length(); i++) {
      for (int j = 0; j < needle.length; j++) {
        if (buffer.getByte(i + j) != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}
