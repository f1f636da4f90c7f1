package dev.routesync.serve;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * Claims a socket path for one agent. The epoll bind silently replaces whatever file is at the
 * path, so without this a second agent would steal a running one's socket. The claim is an advisory
 * lock on {@code <socket>.lock}: the kernel releases it when the process dies, even on SIGKILL, so
 * a crashed agent never blocks its successor.
 */
public final class SocketLock implements AutoCloseable {

  /** The longest Unix socket path the kernel accepts (sun_path is 108 bytes with the NUL). */
  static final int MAX_PATH_BYTES = 107;

  private final Path socket;
  private final FileChannel channel;
  private final FileLock lock;

  private SocketLock(Path socket, FileChannel channel, FileLock lock) {
    this.socket = socket;
    this.channel = channel;
    this.lock = lock;
  }

  /**
   * Creates the socket's directory (0750) if needed, takes the lock and removes a stale socket file
   * left by a dead agent.
   *
   * @throws IllegalStateException with an operator-readable message when the path is unusable or
   *     another live agent owns it
   */
  public static SocketLock claim(Path socket) {
    Path absolute = socket.toAbsolutePath();
    int bytes = absolute.toString().getBytes(StandardCharsets.UTF_8).length;
    if (bytes > MAX_PATH_BYTES) {
      throw new IllegalStateException(
          "socket path " + absolute + " is " + bytes + " bytes; the limit is " + MAX_PATH_BYTES);
    }
    Path dir = absolute.getParent();
    try {
      if (!Files.isDirectory(dir)) {
        Files.createDirectories(dir);
        // Set explicitly: createDirectories' attribute is filtered by the umask.
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-x---"));
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot create socket directory " + dir + ": " + e, e);
    }
    Path lockFile = absolute.resolveSibling(absolute.getFileName() + ".lock");
    FileChannel channel;
    try {
      channel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    } catch (IOException e) {
      throw new IllegalStateException("cannot open lock file " + lockFile + ": " + e, e);
    }
    FileLock lock;
    try {
      lock = channel.tryLock();
    } catch (OverlappingFileLockException e) {
      lock = null; // held by this very process: another agent instance in the same JVM
    } catch (IOException e) {
      closeQuietly(channel);
      throw new IllegalStateException("cannot lock " + lockFile + ": " + e, e);
    }
    if (lock == null) {
      closeQuietly(channel);
      throw new IllegalStateException(
          "another routesync agent is already serving "
              + absolute
              + " (it holds "
              + lockFile
              + "); stop it or choose another --socket");
    }
    try {
      channel.truncate(0);
      channel.write(
          ByteBuffer.wrap(
              (ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII)));
      Files.deleteIfExists(absolute); // stale: its owner no longer holds the lock
    } catch (IOException e) {
      closeQuietly(channel);
      throw new IllegalStateException("cannot prepare socket path " + absolute + ": " + e, e);
    }
    return new SocketLock(absolute, channel, lock);
  }

  public Path socket() {
    return socket;
  }

  /** Sets the socket file's mode once it exists: owner and group may connect (0660). */
  public void restrictSocketMode() {
    try {
      Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rw-rw----"));
    } catch (IOException e) {
      throw new IllegalStateException("cannot set mode 0660 on " + socket + ": " + e, e);
    }
  }

  @Override
  public void close() {
    try {
      lock.release();
    } catch (IOException e) {
      // The lock goes with the channel anyway.
    }
    closeQuietly(channel);
  }

  private static void closeQuietly(FileChannel channel) {
    try {
      channel.close();
    } catch (IOException e) {
      // nothing to do
    }
  }
}
