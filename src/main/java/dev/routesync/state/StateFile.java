package dev.routesync.state;

import dev.routesync.files.FileTrust;
import dev.routesync.table.RoutingTable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Optional;

/**
 * One state file on disk: loaded whole or not at all, and replaced atomically.
 *
 * <p>A write goes to a temporary file beside it ({@code .<name>.tmp}, mode 0600), is forced to the
 * disk, renamed over the file ({@code ATOMIC_MOVE}), and the directory is forced too, so a crash at
 * any moment leaves either the old file or the new one, never a torn one. The directory is created
 * 0700 when missing: sidecars must not read the routes of every Service on the node from it.
 *
 * <p>Beside the file, {@code <name>.complete} says the file was written by a graceful stop after
 * the agent stopped serving, so nothing newer than its version was ever served; a load consumes it
 * (see {@link WarmStart}).
 *
 * <p>Trust: the file is loaded only when it is the agent's own, by the rules of the socket's lock
 * file ({@link FileTrust}): owned by the agent's uid, not writable by its group or others, in a
 * directory that is not writable by its group or others unless it is sticky. Anything else is not
 * loaded ({@link LoadFailure#UNTRUSTED}), whatever it holds: anybody could have planted it.
 *
 * <p>Ownership of the path: the agent replaces only a state file (one that starts with the format's
 * magic, whatever its version or damage), an empty file, or nothing. Anything else found there at
 * start is {@linkplain #refusal refused} (the operator pointed {@code --state-file} at the wrong
 * file), and each write checks the path again before it renames over it.
 *
 * <p>Threading: the caller's. Writes run on the state writer's worker; the load at start.
 */
public final class StateFile {

  private final Path path;
  private final Path temporary;
  private final Path completeMarker;
  private final FileTrust trust;

  /** The state file at {@code path}, trusted when it is this process's uid's. */
  public StateFile(Path path) {
    this(path, FileTrust.ofThisProcess());
  }

  /**
   * @param trust whose files are trusted (tests judge real files as another uid would)
   */
  public StateFile(Path path, FileTrust trust) {
    this.trust = Objects.requireNonNull(trust);
    this.path = Objects.requireNonNull(path).toAbsolutePath();
    String name = this.path.getFileName().toString();
    this.temporary = this.path.resolveSibling("." + name + ".tmp");
    this.completeMarker = this.path.resolveSibling(name + ".complete");
  }

  public Path path() {
    return path;
  }

  /** What a load found. */
  public sealed interface Loaded {}

  /** No file at the path: a first start, or persistence newly turned on. Not a failure. */
  public record Missing() implements Loaded {}

  /**
   * A table to start from.
   *
   * @param complete the file was written by a graceful stop (its marker was there)
   */
  public record Found(PersistedTable persisted, boolean complete) implements Loaded {}

  /** A file that is not loaded, and why. */
  public record Failed(LoadFailure reason, String message) implements Loaded {}

  /**
   * Loads the file, strictly (see {@link TableCodec}), and consumes the completion marker: whatever
   * this agent serves from now on, the next start must not take the file for a graceful stop's
   * unless this agent stops gracefully too.
   */
  public Loaded load(Instant now, int deltaLogCapacity) {
    boolean complete = consumeCompleteMarker();
    BasicFileAttributes attributes;
    try {
      attributes = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    } catch (NoSuchFileException e) {
      return new Missing();
    } catch (IOException e) {
      return new Failed(LoadFailure.IO, "cannot stat: " + e);
    }
    // A symlink is refused too: the agent writes only regular files here.
    if (!attributes.isRegularFile()) {
      return new Failed(
          LoadFailure.NOT_A_FILE,
          attributes.isDirectory() ? "a directory is in its place" : "not a regular file");
    }
    // Before any byte is read: a file that anybody could have written is not opened at all.
    Optional<String> untrusted;
    try {
      untrusted = untrusted();
    } catch (IOException e) {
      return new Failed(LoadFailure.IO, "cannot check who owns it: " + e);
    }
    if (untrusted.isPresent()) {
      return new Failed(LoadFailure.UNTRUSTED, untrusted.get());
    }
    try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
      PersistedTable persisted =
          TableCodec.decode(
              new TableCodec.Source() {
                @Override
                public long size() throws IOException {
                  return channel.size();
                }

                @Override
                public InputStream from(long offset) throws IOException {
                  // Unclosed: the channel is closed once, below.
                  return new java.io.FilterInputStream(
                      Channels.newInputStream(channel.position(offset))) {
                    @Override
                    public void close() {}
                  };
                }
              },
              now,
              deltaLogCapacity);
      return new Found(persisted, complete);
    } catch (StateFormatException e) {
      return new Failed(e.reason(), e.getMessage());
    } catch (AccessDeniedException e) {
      return new Failed(LoadFailure.IO, "permission denied");
    } catch (IOException e) {
      return new Failed(LoadFailure.IO, e.toString());
    }
  }

  /** Why the file is not the agent's own, or empty; the directory first. */
  private Optional<String> untrusted() throws IOException {
    Optional<String> directory = trust.directoryProblem(path.getParent());
    if (directory.isPresent()) {
      return Optional.of("its directory " + path.getParent() + " " + directory.get());
    }
    return trust.fileProblem(path).map(problem -> "it " + problem);
  }

  /**
   * Empty when the agent may write at the path: nothing is there (or it cannot be inspected, and
   * then no write can succeed either), a state file of any format version, damaged or not, or an
   * empty file. Otherwise what is there, for a one-line refusal at start: the agent never replaces
   * a file that is not its own kind.
   */
  public Optional<String> refusal() {
    BasicFileAttributes attributes;
    try {
      attributes = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    } catch (IOException e) {
      return Optional.empty();
    }
    if (attributes.isDirectory()) {
      return Optional.of("a directory is there, not a state file");
    }
    if (attributes.isSymbolicLink()) {
      return Optional.of("a symbolic link is there, not a state file (links are not followed)");
    }
    if (!attributes.isRegularFile()) {
      return Optional.of("a socket or a special file is there, not a state file");
    }
    byte[] head = new byte[Integer.BYTES];
    int read;
    try (FileChannel channel =
        FileChannel.open(path, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
      ByteBuffer buffer = ByteBuffer.wrap(head);
      while (buffer.hasRemaining() && channel.read(buffer) >= 0) {
        // the first four bytes, or fewer in a shorter file
      }
      read = buffer.position();
    } catch (IOException e) {
      return Optional.of(
          "a file is there that the agent cannot read to tell whether it is a state file ("
              + (e instanceof AccessDeniedException ? "permission denied" : e.toString())
              + ")");
    }
    byte[] magic = ByteBuffer.allocate(Integer.BYTES).putInt(TableCodec.MAGIC).array();
    for (int i = 0; i < read; i++) {
      if (head[i] != magic[i]) {
        return Optional.of(
            "a file is there that is not a routesync state file (it does not start with the"
                + " format's magic \"RSTB\")");
      }
    }
    return Optional.empty(); // empty, a torn header, or a state file
  }

  private boolean consumeCompleteMarker() {
    try {
      // A marker counts only if the agent's uid made it: in a sticky directory anybody could
      // create one, and a false "graceful stop" would make sidecars resume into wrong deltas.
      boolean ours =
          Files.isRegularFile(completeMarker, LinkOption.NOFOLLOW_LINKS)
              && trust.owns(completeMarker);
      boolean was = Files.deleteIfExists(completeMarker);
      if (was) {
        forceDirectory();
      }
      return was && ours;
    } catch (IOException e) {
      // Not known to be gone: take the file as an interrupted run's (the safe reading).
      return false;
    }
  }

  /**
   * Replaces the file with {@code table}, atomically and durably.
   *
   * @param complete also leave the completion marker (a graceful stop's last write)
   */
  public void write(
      RoutingTable table, Instant writtenAt, Optional<Instant> syncedAt, boolean complete)
      throws IOException {
    Path directory = path.getParent();
    if (!Files.isDirectory(directory)) {
      Files.createDirectories(
          directory,
          PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    }
    Files.deleteIfExists(temporary); // a crashed writer's leftover
    try {
      try (FileChannel channel =
          FileChannel.open(
              temporary,
              EnumSet.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
              PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))) {
        TableCodec.write(table, writtenAt, syncedAt, channel);
        channel.force(true);
      }
      // Checked at start, and again at each write: something else may have taken the path since.
      Optional<String> refused = refusal();
      if (refused.isPresent()) {
        throw new IOException(path + ": " + refused.get() + "; not replacing it");
      }
      Files.move(temporary, path, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException | RuntimeException e) {
      try {
        Files.deleteIfExists(temporary);
      } catch (IOException ignored) {
        // The next write deletes it first.
      }
      throw e;
    }
    if (complete) {
      try (FileChannel marker =
          FileChannel.open(
              completeMarker,
              EnumSet.of(
                  StandardOpenOption.CREATE,
                  StandardOpenOption.WRITE,
                  StandardOpenOption.TRUNCATE_EXISTING),
              PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))) {
        marker.force(true);
      }
    }
    forceDirectory();
  }

  private void forceDirectory() throws IOException {
    try (FileChannel directory = FileChannel.open(path.getParent(), StandardOpenOption.READ)) {
      directory.force(true);
    }
  }
}
