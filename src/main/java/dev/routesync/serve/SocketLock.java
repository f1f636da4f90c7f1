package dev.routesync.serve;

import dev.routesync.files.FileTrust;
import dev.routesync.startup.BadConfigurationException;
import dev.routesync.startup.Reasons;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Claims a socket path for one agent. The epoll bind silently replaces whatever file is at the
 * path, so without this a second agent would steal a running one's socket. The claim is an advisory
 * lock on {@code <socket>.lock}: the kernel releases it when the process dies, even on SIGKILL, so
 * a crashed agent never blocks its successor.
 *
 * <p>Who can take that lock matters as much as the lock: a process that holds even a shared lock on
 * the file makes the next agent refuse to start. Sidecars mount the socket's directory, so the lock
 * file is kept out of their reach in that same directory, rather than in a second directory that
 * every install would have to provide and keep unmounted (decided for issue 8, B.4):
 *
 * <ul>
 *   <li>The lock file is created {@code 0600}: an fcntl lock needs a descriptor, and only the
 *       agent's uid can open the file. The socket group (sidecars) and others cannot.
 *   <li>The directory must not let the group or others write to it (unless sticky, like {@code
 *       /tmp}): they could otherwise replace the lock file, or the socket, with one of their own.
 *       The DaemonSet makes it {@code 2750}; directories the agent creates are {@code 0750}.
 *   <li>An existing lock file must be a regular file (never followed as a link) owned by the
 *       agent's uid, and must be a lock file: empty, or one process id and a newline, as the agent
 *       writes it. Anything else is refused and left untouched: {@code --socket} then names a path
 *       whose {@code .lock} neighbour is somebody's file. One with another mode, left by an older
 *       version that created it {@code 0644}, is replaced by a new {@code 0600} file, not just
 *       chmod-ed: a descriptor opened while it was world-readable keeps working whatever the mode
 *       becomes, but it then points at an unlinked file nobody else locks. The old file stays
 *       locked too while this agent runs, so an agent that opened it just before the replacement
 *       cannot think it owns the socket as well.
 *   <li>A start that is refused after the claim (something else at the socket path, a failed bind)
 *       removes the lock file if the claim created it, before releasing it, so a refused start
 *       leaves nothing behind.
 * </ul>
 */
public final class SocketLock implements AutoCloseable {

  /** The longest Unix socket path the kernel accepts (sun_path is 108 bytes with the NUL). */
  static final int MAX_PATH_BYTES = 107;

  private static final int S_IFMT = 0170000;
  private static final int S_IFREG = 0100000;
  private static final int PERMISSION_BITS = 0777;
  private static final int OWNER_READ_WRITE = 0600;

  /**
   * The largest lock file: a process id (at most 19 digits, a long) and a newline. A larger file is
   * not a lock file and is never read further.
   */
  static final int MAX_LOCK_FILE_BYTES = 20;

  private static final Pattern LOCK_CONTENT = Pattern.compile("[0-9]{0,19}\n?");

  private final Path socket;
  private final Path lockFile;
  private final List<FileChannel> held;
  private final boolean created;

  private SocketLock(Path socket, Path lockFile, List<FileChannel> held, boolean created) {
    this.socket = socket;
    this.lockFile = lockFile;
    this.held = held;
    this.created = created;
  }

  /** Where the lock of {@code socket} lives: {@code <socket>.lock} beside it. */
  public static Path lockFileOf(Path socket) {
    Path absolute = socket.toAbsolutePath();
    return absolute.resolveSibling(absolute.getFileName() + ".lock");
  }

  /**
   * Checks the socket's directory (creating it 0750 if needed) and takes the lock. Leaves the
   * socket path itself alone: {@link SocketFile} decides what may be replaced there.
   *
   * @throws BadConfigurationException when the path, its directory or the lock file is unusable
   * @throws IllegalStateException when another live agent owns the path
   */
  public static SocketLock claim(Path socket) {
    Path absolute = socket.toAbsolutePath();
    int bytes = absolute.toString().getBytes(StandardCharsets.UTF_8).length;
    if (bytes > MAX_PATH_BYTES) {
      throw new BadConfigurationException(
          "socket path " + absolute + " is " + bytes + " bytes; the limit is " + MAX_PATH_BYTES);
    }
    Path dir = absolute.getParent();
    prepareDirectory(dir);
    Path lockFile = lockFileOf(absolute);
    List<FileChannel> held = new ArrayList<>();
    boolean created;
    try {
      created = lockOrReplace(absolute, lockFile, held);
      FileChannel current = held.get(0);
      current.truncate(0);
      current.write(
          ByteBuffer.wrap(
              (ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII)));
    } catch (IOException e) {
      held.forEach(SocketLock::closeQuietly);
      throw new IllegalStateException("cannot lock " + lockFile + ": " + Reasons.of(e), e);
    } catch (RuntimeException e) {
      held.forEach(SocketLock::closeQuietly);
      throw e;
    }
    return new SocketLock(absolute, lockFile, List.copyOf(held), created);
  }

  private static void prepareDirectory(Path dir) {
    try {
      if (!Files.isDirectory(dir)) {
        Files.createDirectories(dir);
        // Set explicitly: createDirectories' attribute is filtered by the umask.
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-x---"));
      }
      Optional<String> problem = FileTrust.ofThisProcess().directoryProblem(dir);
      if (problem.isPresent()) {
        throw new BadConfigurationException(
            "socket directory "
                + dir
                + " "
                + problem.get()
                + ": they could replace the socket or its lock file; make it 0750, or 2750"
                + " with the socket group");
      }
    } catch (IOException e) {
      throw new BadConfigurationException(
          "cannot prepare socket directory " + dir + ": " + Reasons.of(e), e);
    }
  }

  /**
   * Locks the lock file into {@code held} (first: the one at the path), or throws.
   *
   * @return whether this call created the file at the path
   */
  private static boolean lockOrReplace(Path socket, Path lockFile, List<FileChannel> held)
      throws IOException {
    Map<String, Object> existing;
    try {
      existing = Files.readAttributes(lockFile, "unix:mode,uid", LinkOption.NOFOLLOW_LINKS);
    } catch (NoSuchFileException absent) {
      try {
        held.add(createOwnerOnly(lockFile));
      } catch (FileAlreadyExistsException raced) {
        return lockOrReplace(socket, lockFile, held); // another agent created it first: check it
      }
      lockOrRefuse(socket, lockFile, held.get(0));
      return true;
    }
    int mode = (Integer) existing.get("mode");
    if ((mode & S_IFMT) != S_IFREG) {
      throw new BadConfigurationException(
          "lock file " + lockFile + " is not a regular file (a link or a directory?); remove it");
    }
    FileTrust trust = FileTrust.ofThisProcess();
    if (!trust.owns(lockFile)) {
      throw new BadConfigurationException(
          "lock file "
              + lockFile
              + " belongs to uid "
              + existing.get("uid")
              + ", not to this agent's uid "
              + trust.uid()
              + "; remove it if no agent runs");
    }
    // Read only now: the directory is the agent's (or sticky) and the file is the agent's uid's, so
    // nobody else can have put a FIFO or a link at the path since the check above.
    refuseIfNotALockFile(lockFile);
    FileChannel old =
        FileChannel.open(lockFile, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
    held.add(old);
    lockOrRefuse(socket, lockFile, old);
    if ((mode & PERMISSION_BITS) == OWNER_READ_WRITE) {
      return false;
    }
    Path next = lockFile.resolveSibling(lockFile.getFileName() + ".new");
    Files.deleteIfExists(next); // a leftover of a replacement cut short; only we may write here
    FileChannel fresh = createOwnerOnly(next);
    held.add(0, fresh);
    lockOrRefuse(socket, lockFile, fresh);
    Files.move(next, lockFile, StandardCopyOption.ATOMIC_MOVE);
    return false;
  }

  /**
   * Refuses a file that is not a lock file: the agent writes its process id and a newline, and an
   * agent that died before writing leaves it empty. Anything else is somebody's file: --socket is
   * then pointing beside something that is not the agent's, and truncating it would lose it.
   */
  private static void refuseIfNotALockFile(Path lockFile) throws IOException {
    String content;
    try (FileChannel channel =
        FileChannel.open(lockFile, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
      ByteBuffer bytes = ByteBuffer.allocate(MAX_LOCK_FILE_BYTES + 1);
      while (bytes.hasRemaining() && channel.read(bytes) >= 0) {
        // read up to one byte past the largest lock file
      }
      content = new String(bytes.array(), 0, bytes.position(), StandardCharsets.ISO_8859_1);
    }
    if (content.length() > MAX_LOCK_FILE_BYTES || !LOCK_CONTENT.matcher(content).matches()) {
      throw new BadConfigurationException(
          "lock file "
              + lockFile
              + " is not a routesync lock file (those are empty or hold one process id);"
              + " refusing to replace it: remove it, or choose another --socket");
    }
  }

  private static FileChannel createOwnerOnly(Path file) throws IOException {
    FileChannel channel =
        FileChannel.open(
            file,
            java.util.Set.of(
                StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS),
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    // The umask can only remove bits, but say it once more in case the file system adds some.
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    return channel;
  }

  private static void lockOrRefuse(Path socket, Path lockFile, FileChannel channel)
      throws IOException {
    FileLock lock;
    try {
      lock = channel.tryLock();
    } catch (OverlappingFileLockException e) {
      lock = null; // held by this very process: another agent instance in the same JVM
    }
    if (lock == null) {
      throw new IllegalStateException(
          "another routesync agent is already serving "
              + socket
              + " (it holds "
              + lockFile
              + "); stop it or choose another --socket");
    }
  }

  public Path socket() {
    return socket;
  }

  /**
   * For a start refused after the claim: removes the lock file if this claim created it, then
   * releases the lock. Removed while still locked, so no agent can lock the file and then lose it
   * to the removal; an agent that opened it in that instant finds it locked and refuses, as it
   * would have a moment earlier.
   */
  public void abandon() {
    if (created) {
      try {
        Files.deleteIfExists(lockFile);
      } catch (IOException e) {
        // Left behind: an empty or pid-only file the next start accepts.
      }
    }
    close();
  }

  /** Releases the lock (and closes the files; the lock file stays, for the next agent). */
  @Override
  public void close() {
    held.forEach(SocketLock::closeQuietly); // closing a channel releases its lock
  }

  private static void closeQuietly(FileChannel channel) {
    try {
      channel.close();
    } catch (IOException e) {
      // nothing to do
    }
  }
}
