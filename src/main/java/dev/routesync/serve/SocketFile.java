package dev.routesync.serve;

import dev.routesync.startup.BadConfigurationException;
import dev.routesync.startup.Reasons;
import java.io.IOException;
import java.net.ConnectException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * The socket file one agent serves on, from "may I put it there" to "may I remove it". Used under
 * the {@link SocketLock}.
 *
 * <ul>
 *   <li>Only nothing, or a stale socket (a socket nobody listens on: a dead agent's), is replaced.
 *       A regular file, a directory, a link, or a socket someone listens on without the lock is
 *       left alone and refused: the operator pointed {@code --socket} at the wrong place.
 *   <li>The server binds a private name in the same directory; {@link #publish} then sets the mode
 *       and renames it over the configured path in one step. Netty deletes the path it bound when
 *       it closes, whatever file is there by then, so binding the configured path itself would let
 *       a stopping agent delete a newer agent's socket.
 *   <li>The file is known by its inode from then on: readiness fails when the path no longer holds
 *       it, and {@link #removeIfOurs} leaves a newer agent's socket in place.
 * </ul>
 */
final class SocketFile {

  private static final int S_IFMT = 0170000;
  private static final int S_IFSOCK = 0140000;
  private static final int S_IFLNK = 0120000;
  private static final int S_IFREG = 0100000;
  private static final int S_IFDIR = 0040000;

  private static final SecureRandom RANDOM = new SecureRandom();

  private final Path socket;
  private final Path bindPath;
  private volatile Object fileKey;

  private SocketFile(Path socket, Path bindPath) {
    this.socket = socket;
    this.bindPath = bindPath;
  }

  /**
   * Checks that {@code socket} (absolute) holds nothing or a stale socket, and picks the private
   * name to bind.
   *
   * @throws BadConfigurationException when something else is there
   */
  static SocketFile reserve(Path socket) {
    refuseAnythingButAStaleSocket(socket);
    // Nine bytes, so the private path is no longer than the configured one unless the socket's
    // name is shorter than that: the kernel's 107-byte limit keeps meaning what it says.
    Path bindPath;
    do {
      byte[] random = new byte[4];
      RANDOM.nextBytes(random);
      bindPath = socket.resolveSibling("." + HexFormat.of().formatHex(random));
    } while (Files.exists(bindPath, LinkOption.NOFOLLOW_LINKS));
    int bytes = bindPath.toString().getBytes(StandardCharsets.UTF_8).length;
    if (bytes > SocketLock.MAX_PATH_BYTES) {
      throw new BadConfigurationException(
          "socket path "
              + socket
              + " is too long: the agent first binds "
              + bindPath.getFileName()
              + " beside it, "
              + bytes
              + " bytes; the limit is "
              + SocketLock.MAX_PATH_BYTES);
    }
    return new SocketFile(socket, bindPath);
  }

  private static void refuseAnythingButAStaleSocket(Path socket) {
    int mode;
    try {
      mode = (Integer) Files.getAttribute(socket, "unix:mode", LinkOption.NOFOLLOW_LINKS);
    } catch (NoSuchFileException absent) {
      return;
    } catch (IOException e) {
      throw new BadConfigurationException(
          "--socket " + socket + ": cannot inspect it (" + Reasons.of(e) + ")", e);
    }
    String found =
        switch (mode & S_IFMT) {
          case S_IFSOCK -> null;
          case S_IFREG -> "a regular file";
          case S_IFDIR -> "a directory";
          case S_IFLNK -> "a symbolic link";
          default -> "a special file";
        };
    if (found != null) {
      throw new BadConfigurationException(
          "--socket "
              + socket
              + ": "
              + found
              + " is there, not a socket; refusing to replace it (only a stale socket is)");
    }
    String listening = whoListens(socket);
    if (listening != null) {
      throw new BadConfigurationException(
          "--socket "
              + socket
              + ": "
              + listening
              + ", without holding "
              + socket.getFileName()
              + ".lock (not a routesync agent of this version); refusing to replace it");
    }
  }

  /**
   * Null when nobody listens on the socket (connection refused, at once); otherwise what was found.
   * The connect never blocks: a live listener accepts into its backlog at once or, when that is
   * full, fails with EAGAIN, and both mean somebody is there. (The JDK refuses paths of exactly 107
   * bytes, one short of the kernel: a stale socket there is refused rather than replaced.)
   */
  private static String whoListens(Path socket) {
    try (SocketChannel probe = SocketChannel.open(StandardProtocolFamily.UNIX)) {
      probe.configureBlocking(false);
      probe.connect(UnixDomainSocketAddress.of(socket));
      return "a process is listening on it";
    } catch (ConnectException refused) {
      return null;
    } catch (IOException e) {
      return "a connect to it did not say it is stale (" + Reasons.of(e) + ")";
    }
  }

  /** Where the server binds before {@link #publish}. */
  Path bindPath() {
    return bindPath;
  }

  /** Owner and group may connect (0660); then the socket takes the configured path. */
  void publish() {
    try {
      Files.setPosixFilePermissions(bindPath, PosixFilePermissions.fromString("rw-rw----"));
      Object key = keyOf(bindPath);
      Files.move(bindPath, socket, StandardCopyOption.ATOMIC_MOVE);
      fileKey = key;
    } catch (IOException e) {
      deleteQuietly(bindPath);
      throw new IllegalStateException(
          "cannot put the socket at " + socket + ": " + Reasons.of(e), e);
    }
  }

  /** Empty while the configured path holds this socket; otherwise why not, for readiness. */
  String problem() {
    Object key = fileKey;
    if (key == null) {
      return "socket not listening";
    }
    Object now;
    try {
      now = keyOf(socket);
    } catch (NoSuchFileException e) {
      return "socket file " + socket + " was removed";
    } catch (IOException e) {
      return "socket file " + socket + " cannot be checked: " + Reasons.of(e);
    }
    return key.equals(now) ? "" : "socket file " + socket + " was replaced by another file";
  }

  /** Removes the socket file if the path still holds the one this agent published. */
  void removeIfOurs() {
    Object key = fileKey;
    fileKey = null;
    deleteQuietly(bindPath); // only there if publish never ran
    if (key == null) {
      return;
    }
    try {
      if (key.equals(keyOf(socket))) {
        Files.delete(socket);
      }
    } catch (IOException e) {
      // Gone already, or not ours to remove: either way nothing is left of this agent's.
    }
  }

  private static Object keyOf(Path file) throws IOException {
    return Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
        .fileKey(); // device and inode
  }

  private static void deleteQuietly(Path file) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      // best effort
    }
  }
}
