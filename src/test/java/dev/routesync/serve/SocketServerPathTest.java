package dev.routesync.serve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.startup.BadConfigurationException;
import dev.routesync.testing.UdsHttp;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@link SocketServer} does with the file at its path: it replaces only a stale socket, and on
 * stop removes only the socket it created.
 */
@Timeout(30)
class SocketServerPathTest {

  @TempDir Path dir;

  private final Vertx vertx =
      Vertx.builder().with(new VertxOptions().setPreferNativeTransport(true)).build();

  @AfterEach
  void closeVertx() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  private SocketServer server(Path socket) {
    return new SocketServer(vertx, socket, request -> request.response().end("ok"));
  }

  private static Throwable failureOf(Future<?> future) throws Exception {
    return future
        .<Throwable>transform(done -> Future.succeededFuture(done.failed() ? done.cause() : null))
        .await(10, TimeUnit.SECONDS);
  }

  private static Object inode(Path file) throws IOException {
    return Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
        .fileKey();
  }

  private static String get(Path socket) throws IOException {
    try (UdsHttp http = new UdsHttp(socket)) {
      return http.get("/").body();
    }
  }

  /** A socket file nobody listens on, as a SIGKILLed agent leaves it (the JDK keeps the file). */
  private static void staleSocketAt(Path path) throws IOException {
    ServerSocketChannel.open(StandardProtocolFamily.UNIX)
        .bind(UnixDomainSocketAddress.of(path))
        .close();
  }

  @Test
  void replacesAStaleSocketAndServesWithMode0660() throws Exception {
    Path socket = dir.resolve("rs.sock");
    staleSocketAt(socket);
    Object stale = inode(socket);
    SocketServer server = server(socket);

    server.listen().await(10, TimeUnit.SECONDS);
    try {
      assertThat(get(socket)).isEqualTo("ok");
      assertThat(inode(socket)).isNotEqualTo(stale);
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(socket)))
          .isEqualTo("rw-rw----");
      // Only the socket and its lock: the private bind name was moved, not left behind.
      try (var files = Files.list(dir)) {
        assertThat(files.map(p -> p.getFileName().toString()))
            .containsExactlyInAnyOrder("rs.sock", "rs.sock.lock");
      }
    } finally {
      server.close().await(10, TimeUnit.SECONDS);
    }
    assertThat(socket).doesNotExist();
  }

  @Test
  void servesOnAPathOfExactlyTheKernelsLimit() throws Exception {
    String prefix = dir.toAbsolutePath() + "/";
    Path socket = Path.of(prefix + "s".repeat(SocketLock.MAX_PATH_BYTES - prefix.length()));
    SocketServer server = server(socket);

    server.listen().await(10, TimeUnit.SECONDS);
    try {
      // (The JDK's own client stops one byte short of the kernel's limit, so no request here.)
      int mode = (Integer) Files.getAttribute(socket, "unix:mode", LinkOption.NOFOLLOW_LINKS);
      assertThat(mode & 0170000).as("a socket").isEqualTo(0140000);
      assertThat(server.fileProblem()).isEmpty();
    } finally {
      server.close().await(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void refusesARegularFileAndKeepsItsData() throws Exception {
    Path socket = Files.writeString(dir.resolve("rs.sock"), "precious data");

    Throwable failure = failureOf(server(socket).listen());

    assertThat(failure)
        .isInstanceOf(BadConfigurationException.class)
        .hasMessage(
            "--socket "
                + socket
                + ": a regular file is there, not a socket; refusing to replace it (only a stale"
                + " socket is)");
    assertThat(Files.readString(socket)).isEqualTo("precious data");
  }

  @Test
  void aRefusedStartRemovesTheLockFileItCreated() throws Exception {
    Path socket = Files.writeString(dir.resolve("rs.sock"), "precious data");

    assertThat(failureOf(server(socket).listen())).isInstanceOf(BadConfigurationException.class);

    assertThat(dir.resolve("rs.sock.lock")).doesNotExist();
    try (var entries = Files.list(dir)) {
      assertThat(entries.map(p -> p.getFileName().toString())).containsExactly("rs.sock");
    }
  }

  @Test
  void aRefusedStartKeepsALockFileThatWasThere() throws Exception {
    // A previous agent's: the next one finds it as it was.
    Path socket = dir.resolve("rs.sock");
    SocketLock.claim(socket).close();
    Object before = inode(dir.resolve("rs.sock.lock"));
    Files.writeString(socket, "precious data");

    assertThat(failureOf(server(socket).listen())).isInstanceOf(BadConfigurationException.class);

    assertThat(inode(dir.resolve("rs.sock.lock"))).isEqualTo(before);
  }

  @Test
  void refusesAnEmptyDirectoryAndKeepsIt() throws Exception {
    Path socket = dir.resolve("rs.sock");
    socket.toFile().mkdir();

    Throwable failure = failureOf(server(socket).listen());

    assertThat(failure)
        .isInstanceOf(BadConfigurationException.class)
        .hasMessageContaining("a directory is there, not a socket");
    assertThat(socket).isDirectory();
  }

  @Test
  void refusesASymbolicLinkAndKeepsItAndItsTarget() throws Exception {
    Path target = dir.resolve("target.sock");
    staleSocketAt(target);
    Path socket = Files.createSymbolicLink(dir.resolve("rs.sock"), target);

    Throwable failure = failureOf(server(socket).listen());

    assertThat(failure)
        .isInstanceOf(BadConfigurationException.class)
        .hasMessageContaining("a symbolic link is there, not a socket");
    assertThat(Files.isSymbolicLink(socket)).isTrue();
    assertThat(Files.exists(target, LinkOption.NOFOLLOW_LINKS)).isTrue();
  }

  @Test
  void refusesASocketSomebodyListensOnWithoutTheLock() throws Exception {
    Path socket = dir.resolve("rs.sock");
    try (ServerSocketChannel other = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      other.bind(UnixDomainSocketAddress.of(socket));

      Throwable failure = failureOf(server(socket).listen());

      assertThat(failure)
          .isInstanceOf(BadConfigurationException.class)
          .hasMessage(
              "--socket "
                  + socket
                  + ": a process is listening on it, without holding rs.sock.lock (not a"
                  + " routesync agent of this version); refusing to replace it");
      // Still the other program's, and still reachable.
      try (SocketChannel client = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
        assertThat(client.isConnected()).isTrue();
      }
    }
  }

  @Test
  void aStoppingAgentLeavesANewerAgentsSocketInPlace() throws Exception {
    Path socket = dir.resolve("rs.sock");
    SocketServer older = server(socket);
    older.listen().await(10, TimeUnit.SECONDS);
    // A newer agent's socket takes the path while the older one still runs.
    Path newerBind = dir.resolve("newer.sock");
    try (ServerSocketChannel newer = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      newer.bind(UnixDomainSocketAddress.of(newerBind));
      Files.move(newerBind, socket, StandardCopyOption.ATOMIC_MOVE);
      Object newerInode = inode(socket);

      older.close().await(10, TimeUnit.SECONDS);

      assertThat(socket).exists();
      assertThat(inode(socket)).isEqualTo(newerInode);
      try (SocketChannel client = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
        assertThat(client.isConnected()).isTrue();
      }
    }
  }

  @Test
  void reportsWhenItsSocketFileIsRemovedOrReplaced() throws Exception {
    Path socket = dir.resolve("rs.sock");
    SocketServer server = server(socket);
    assertThat(server.fileProblem()).isEqualTo("socket not listening");
    server.listen().await(10, TimeUnit.SECONDS);
    try {
      assertThat(server.fileProblem()).isEmpty();

      Files.delete(socket);
      assertThat(server.fileProblem()).isEqualTo("socket file " + socket + " was removed");

      staleSocketAt(socket);
      assertThat(server.fileProblem())
          .isEqualTo("socket file " + socket + " was replaced by another file");
    } finally {
      server.close().await(10, TimeUnit.SECONDS);
    }
  }
}
