package dev.routesync.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A bare client connection, over TCP or a Unix socket, that writes whatever bytes a test wants
 * (half-sent headers, odd methods, pipelined requests) and reads with a deadline on every call, so
 * no test can wait forever on a server that keeps quiet.
 */
public final class RawConnection implements AutoCloseable {

  private final SocketChannel channel;
  private final Selector selector;

  private RawConnection(SocketChannel channel) throws IOException {
    this.channel = channel;
    channel.configureBlocking(false);
    this.selector = Selector.open();
    channel.register(selector, SelectionKey.OP_READ);
  }

  public static RawConnection unix(Path socket) throws IOException {
    SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
    channel.connect(UnixDomainSocketAddress.of(socket));
    return new RawConnection(channel);
  }

  public static RawConnection tcp(int port) throws IOException {
    SocketChannel channel = SocketChannel.open();
    channel.socket().connect(new InetSocketAddress("127.0.0.1", port), 5_000);
    return new RawConnection(channel);
  }

  /**
   * A TCP connection to {@code port} on 127.0.0.1 from {@code source}, another loopback address
   * (127.0.0.2, ...): Linux routes all of 127/8 to lo, so one test plays many clients' addresses.
   */
  public static RawConnection tcpFrom(String source, int port) throws IOException {
    SocketChannel channel = SocketChannel.open();
    channel.bind(new InetSocketAddress(source, 0));
    channel.socket().connect(new InetSocketAddress("127.0.0.1", port), 5_000);
    return new RawConnection(channel);
  }

  public static RawConnection to(SocketAddress address) throws IOException {
    return address instanceof UnixDomainSocketAddress unix
        ? unix(unix.getPath())
        : tcp(((InetSocketAddress) address).getPort());
  }

  /** Writes every byte (the server reads as it goes; the socket buffers hold the rest). */
  public RawConnection write(String text) throws IOException {
    ByteBuffer out = ByteBuffer.wrap(text.getBytes(StandardCharsets.ISO_8859_1));
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (out.hasRemaining()) {
      if (channel.write(out) == 0) {
        if (System.nanoTime() > deadline) {
          throw new IOException("write stalled for 10 s");
        }
        Thread.onSpinWait();
      }
    }
    return this;
  }

  /**
   * Reads until the server closes the connection.
   *
   * @throws IOException if it is still open after {@code timeout}
   */
  public String readToEnd(Duration timeout) throws IOException {
    ByteArrayOutputStream received = new ByteArrayOutputStream();
    long deadline = System.nanoTime() + timeout.toNanos();
    ByteBuffer in = ByteBuffer.allocate(64 * 1024);
    while (true) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new IOException("still open after " + timeout + "; got " + received.size() + " B");
      }
      selector.select(Math.max(1, left / 1_000_000));
      selector.selectedKeys().clear();
      int read;
      try {
        read = channel.read(in);
      } catch (IOException reset) {
        return received.toString(StandardCharsets.ISO_8859_1); // reset by the server: closed
      }
      if (read < 0) {
        return received.toString(StandardCharsets.ISO_8859_1);
      }
      received.write(in.array(), 0, in.position());
      in.clear();
    }
  }

  /**
   * Reads until {@code done} holds for everything received so far, or the server closes the
   * connection; leaves it open otherwise.
   *
   * @throws IOException if neither happened within {@code timeout}
   */
  public String readUntil(java.util.function.Predicate<String> done, Duration timeout)
      throws IOException {
    StringBuilder received = new StringBuilder();
    long deadline = System.nanoTime() + timeout.toNanos();
    ByteBuffer in = ByteBuffer.allocate(64 * 1024);
    while (!done.test(received.toString())) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new IOException("not done after " + timeout + "; got " + received.length() + " B");
      }
      selector.select(Math.max(1, left / 1_000_000));
      selector.selectedKeys().clear();
      int read;
      try {
        read = channel.read(in);
      } catch (IOException reset) {
        break; // reset by the server: closed
      }
      if (read < 0) {
        break;
      }
      received.append(new String(in.array(), 0, in.position(), StandardCharsets.ISO_8859_1));
      in.clear();
    }
    return received.toString();
  }

  /**
   * Reads until one whole answer with a {@code content-length} has arrived, leaving the connection
   * open.
   */
  public String readUntilAnswered(Duration timeout) throws IOException {
    StringBuilder received = new StringBuilder();
    long deadline = System.nanoTime() + timeout.toNanos();
    ByteBuffer in = ByteBuffer.allocate(64 * 1024);
    while (!complete(received)) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new IOException("no whole answer after " + timeout + "; got " + received);
      }
      selector.select(Math.max(1, left / 1_000_000));
      selector.selectedKeys().clear();
      if (channel.read(in) < 0) {
        throw new IOException("closed before a whole answer; got " + received);
      }
      received.append(new String(in.array(), 0, in.position(), StandardCharsets.ISO_8859_1));
      in.clear();
    }
    return received.toString();
  }

  private static boolean complete(CharSequence received) {
    String text = received.toString();
    int end = text.indexOf("\r\n\r\n");
    if (end < 0) {
      return false;
    }
    for (String line : text.substring(0, end).split("\r\n")) {
      if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
        return text.length() - end - 4 >= Integer.parseInt(line.substring(15).trim());
      }
    }
    return true;
  }

  /** True once the server has closed its side (reads EOF or a reset); never blocks. */
  public boolean closedByServer() {
    ByteBuffer in = ByteBuffer.allocate(8192);
    try {
      int read;
      while ((read = channel.read(in)) > 0) {
        in.clear();
      }
      return read < 0;
    } catch (IOException reset) {
      return true;
    }
  }

  @Override
  public void close() throws IOException {
    selector.close();
    channel.close();
  }
}
