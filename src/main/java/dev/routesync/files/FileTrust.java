package dev.routesync.files;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * The rules a file the agent trusts, and its directory, must meet: only the agent's uid can have
 * written what is in it.
 *
 * <ul>
 *   <li>The directory lets neither its group nor others write, unless it is sticky (like {@code
 *       /tmp}): in a sticky directory only a file's owner (or root) can rename or remove it, so
 *       nobody can replace the agent's files there, though anybody can create files of their own.
 *   <li>The file is the agent's: owned by the agent's uid, and its group and others cannot write to
 *       it. A file created by someone else, in a sticky directory too, fails this.
 * </ul>
 *
 * <p>Each check returns what is wrong as a predicate ("is writable by ..."), for the caller to put
 * after the file's name in a log line or a start-up error, or empty. The agent's uid is a
 * constructor argument so that tests can judge a real file as another uid would.
 *
 * @param uid the uid the files must belong to: the agent's ({@link #ofThisProcess})
 */
public record FileTrust(int uid) {

  private static final int S_ISVTX = 01000;
  private static final int GROUP_OR_OTHERS_WRITE = 0022;

  /** The rules for files of this process's effective uid. */
  public static FileTrust ofThisProcess() {
    return new FileTrust(currentUid());
  }

  /**
   * The effective uid of this process: the owner of {@code /proc/self}. No native call, no extra
   * module.
   */
  public static int currentUid() {
    try {
      return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
    } catch (IOException | UnsupportedOperationException e) {
      throw new IllegalStateException("cannot read this process's uid from /proc/self: " + e, e);
    }
  }

  /**
   * What makes {@code directory} unfit to hold the agent's files, or empty.
   *
   * @throws IOException when it cannot be inspected (missing included)
   */
  public Optional<String> directoryProblem(Path directory) throws IOException {
    int mode = (Integer) Files.getAttribute(directory, "unix:mode");
    if ((mode & GROUP_OR_OTHERS_WRITE) != 0 && (mode & S_ISVTX) == 0) {
      return Optional.of("is writable by its group or others (mode " + octal(mode) + ")");
    }
    return Optional.empty();
  }

  /**
   * What makes {@code file} (never followed as a link) not the agent's own, or empty. Checks the
   * owner and the mode, not the file's type.
   *
   * @throws IOException when it cannot be inspected (missing included)
   */
  public Optional<String> fileProblem(Path file) throws IOException {
    Map<String, Object> attributes =
        Files.readAttributes(file, "unix:mode,uid", LinkOption.NOFOLLOW_LINKS);
    int owner = (Integer) attributes.get("uid");
    int mode = (Integer) attributes.get("mode");
    if (owner != uid) {
      return Optional.of("belongs to uid " + owner + ", not to the agent's uid " + uid);
    }
    if ((mode & GROUP_OR_OTHERS_WRITE) != 0) {
      return Optional.of("is writable by its group or others (mode " + octal(mode) + ")");
    }
    return Optional.empty();
  }

  /** Whether {@code file} (never followed as a link) belongs to the agent's uid. */
  public boolean owns(Path file) throws IOException {
    return (Integer) Files.getAttribute(file, "unix:uid", LinkOption.NOFOLLOW_LINKS) == uid;
  }

  private static String octal(int mode) {
    return String.format("%04o", mode & 07777);
  }
}
