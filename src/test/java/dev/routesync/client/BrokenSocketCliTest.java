package dev.routesync.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CLI against sockets that are not a well-behaved agent, run as a user runs it: a JVM of its
 * own, with the shipped logging configuration and a small heap, so what is asserted is all it
 * prints and all the memory it may take.
 */
@Timeout(value = 90, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class BrokenSocketCliTest {

  /** Far below the 1.78 GB an endless body took: the cap must hold well under it. */
  private static final String HEAP = "-Xmx64m";

  @TempDir Path dir;

  record Run(int exitCode, List<String> errLines, long millis) {}

  /** {@code routesync ARGS} in a forked JVM; killed after 40 s. */
  private static Run cli(String... args) throws Exception {
    String logback = BrokenSocketCliTest.class.getResource("/logback.xml").getPath();
    List<String> command =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                HEAP,
                "-XX:+UseSerialGC",
                "-XX:+ExitOnOutOfMemoryError",
                "-XX:TieredStopAtLevel=1",
                "-Dlogback.configurationFile=" + logback,
                "-cp",
                System.getProperty("java.class.path"),
                "dev.routesync.app.Main"));
    command.addAll(List.of(args));
    long start = System.nanoTime();
    Process process =
        new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    byte[] err;
    try (InputStream stderr = process.getErrorStream()) {
      if (!process.waitFor(40, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        throw new AssertionError("the CLI did not end within 40 s");
      }
      err = stderr.readAllBytes();
    }
    return new Run(
        process.exitValue(),
        new String(err, StandardCharsets.UTF_8).lines().toList(),
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
  }

  /** Serves each connection with {@code serve} on a thread of its own until closed. */
  private static final class RawSocketServer implements AutoCloseable {
    private final ServerSocketChannel server;
    private final Thread acceptor;

    RawSocketServer(Path path, Consumer<SocketChannel> serve) throws IOException {
      server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
      server.bind(UnixDomainSocketAddress.of(path));
      acceptor = new Thread(() -> acceptAll(serve), "raw-socket-acceptor");
      acceptor.setDaemon(true);
      acceptor.start();
    }

    private void acceptAll(Consumer<SocketChannel> serve) {
      while (server.isOpen()) {
        SocketChannel connection;
        try {
          connection = server.accept();
        } catch (IOException e) {
          return; // closed
        }
        Thread worker =
            new Thread(
                () -> {
                  try (connection) {
                    serve.accept(connection);
                  } catch (IOException | RuntimeException e) {
                    // the client went away
                  }
                },
                "raw-socket-connection");
        worker.setDaemon(true);
        worker.start();
      }
    }

    @Override
    public void close() throws Exception {
      server.close();
      acceptor.join(5000);
    }
  }

  private static void readRequest(SocketChannel connection) {
    try {
      connection.read(ByteBuffer.allocate(64 * 1024));
    } catch (IOException e) {
      throw new RuntimeException(e);
    }
  }

  private static void write(SocketChannel connection, String text) {
    write(connection, ByteBuffer.wrap(text.getBytes(StandardCharsets.US_ASCII)));
  }

  private static void write(SocketChannel connection, ByteBuffer bytes) {
    try {
      while (bytes.hasRemaining()) {
        connection.write(bytes);
      }
    } catch (IOException e) {
      throw new RuntimeException(e);
    }
  }

  @Test
  void anEndlessDriftBodyIsCutAtTheCapInOneLine() throws Exception {
    Path socket = dir.resolve("rs.sock");
    byte[] chunk = "x".repeat(64 * 1024).getBytes(StandardCharsets.US_ASCII);
    ByteBuffer framed =
        ByteBuffer.allocate(chunk.length + 16)
            .put((Integer.toHexString(chunk.length) + "\r\n").getBytes(StandardCharsets.US_ASCII))
            .put(chunk)
            .put("\r\n".getBytes(StandardCharsets.US_ASCII))
            .flip();
    try (RawSocketServer endless =
        new RawSocketServer(
            socket,
            connection -> {
              readRequest(connection);
              write(
                  connection,
                  "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
                      + "transfer-encoding: chunked\r\n\r\n");
              while (true) {
                write(connection, framed.duplicate());
              }
            })) {
      Run run = cli("get", "drift", "--socket", socket.toString());

      assertThat(run.errLines())
          .singleElement()
          .asString()
          .isEqualTo(
              "routesync: the answer to GET /v1/drift on "
                  + socket
                  + " is larger than 16 MiB, the most this client reads; stopped reading it");
      assertThat(run.exitCode()).isEqualTo(1);
      // Cut at the cap, not at the call's 10 s timeout.
      assertThat(run.millis()).isLessThan(10_000);
    }
  }

  @Test
  void aServerThatSpeaksGarbageIsOneLineInWords() throws Exception {
    Path socket = dir.resolve("rs.sock");
    try (RawSocketServer garbage =
        new RawSocketServer(
            socket,
            connection -> {
              readRequest(connection);
              write(connection, "garbage garbage garbage\r\n".repeat(10));
            })) {
      for (String command : List.of("services", "drift")) {
        Run run = cli("get", command, "--socket", socket.toString());

        assertThat(run.errLines())
            .as("get " + command)
            .singleElement()
            .asString()
            .isEqualTo(
                "routesync: the server on "
                    + socket
                    + " does not speak the agent's protocol (is --socket the agent's socket?)");
        assertThat(run.exitCode()).isEqualTo(1);
      }
    }
  }

  @Test
  void theCliStillReadsAFileSocketPathAsNoAgent() throws Exception {
    // Control: the one-line path that worked before stays as it was.
    Path socket = Files.writeString(dir.resolve("not-a-socket"), "");
    Run run = cli("get", "services", "--socket", socket.toString());
    assertThat(run.errLines()).singleElement().asString().startsWith("routesync: ");
    assertThat(run.exitCode()).isEqualTo(1);
  }
}
