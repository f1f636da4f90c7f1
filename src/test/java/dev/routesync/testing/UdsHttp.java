package dev.routesync.testing;

import io.vertx.core.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A minimal, independent HTTP/1.1 client over a Unix socket: the JDK's own socket channel, one
 * request per connection ({@code Connection: close}), nothing shared with the server's stack.
 *
 * <p>Every request has a deadline: Unix socket channels have no read timeout, so a timer closes the
 * channel, which ends a blocked read with an exception instead of a hang.
 */
public final class UdsHttp implements AutoCloseable {

  /** The longest a request may take, connect to last byte. */
  public static final Duration DEADLINE = Duration.ofSeconds(10);

  private static final ScheduledExecutorService DEADLINES =
      Executors.newSingleThreadScheduledExecutor(
          task -> {
            Thread thread = new Thread(task, "uds-http-deadline");
            thread.setDaemon(true);
            return thread;
          });

  /** Status, content type and body of one answer. */
  public record Reply(int status, String contentType, String body) {
    public JsonObject json() {
      return new JsonObject(body);
    }
  }

  private final Path socket;

  public UdsHttp(Path socket) {
    this.socket = socket;
  }

  public Reply get(String uri) throws IOException {
    return request("GET", uri);
  }

  public Reply request(String method, String uri) throws IOException {
    try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
      ScheduledFuture<?> deadline =
          DEADLINES.schedule(
              () -> closeQuietly(channel), DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
      try {
        return exchange(channel, method, uri);
      } catch (AsynchronousCloseException e) {
        throw new IOException(method + " " + uri + ": no complete answer within " + DEADLINE, e);
      } finally {
        deadline.cancel(false);
      }
    }
  }

  private Reply exchange(SocketChannel channel, String method, String uri) throws IOException {
    {
      channel.connect(UnixDomainSocketAddress.of(socket));
      String request =
          method + " " + uri + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
      ByteBuffer out = ByteBuffer.wrap(request.getBytes(StandardCharsets.US_ASCII));
      while (out.hasRemaining()) {
        channel.write(out);
      }
      ByteArrayOutputStream received = new ByteArrayOutputStream();
      ByteBuffer in = ByteBuffer.allocate(8192);
      while (channel.read(in) >= 0) {
        received.write(in.array(), 0, in.position());
        in.clear();
      }
      return parse(received.toString(StandardCharsets.UTF_8));
    }
  }

  private static void closeQuietly(SocketChannel channel) {
    try {
      channel.close();
    } catch (IOException e) {
      // closing is all we wanted
    }
  }

  private static Reply parse(String raw) {
    int headerEnd = raw.indexOf("\r\n\r\n");
    String[] lines = raw.substring(0, headerEnd).split("\r\n");
    int status = Integer.parseInt(lines[0].split(" ")[1]);
    String contentType = null;
    boolean chunked = false;
    for (int i = 1; i < lines.length; i++) {
      String[] header = lines[i].split(":", 2);
      String name = header[0].trim().toLowerCase(Locale.ROOT);
      if (name.equals("content-type")) {
        contentType = header[1].trim();
      } else if (name.equals("transfer-encoding") && header[1].trim().equals("chunked")) {
        chunked = true;
      }
    }
    String body = raw.substring(headerEnd + 4);
    return new Reply(status, contentType, chunked ? unchunk(body) : body);
  }

  private static String unchunk(String body) {
    StringBuilder out = new StringBuilder();
    int at = 0;
    while (true) {
      int lineEnd = body.indexOf("\r\n", at);
      int size = Integer.parseInt(body.substring(at, lineEnd).trim(), 16);
      if (size == 0) {
        return out.toString();
      }
      out.append(body, lineEnd + 2, lineEnd + 2 + size);
      at = lineEnd + 2 + size + 2;
    }
  }

  @Override
  public void close() {}
}
