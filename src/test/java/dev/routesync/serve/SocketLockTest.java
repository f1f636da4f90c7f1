package dev.routesync.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.routesync.startup.BadConfigurationException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

class SocketLockTest {

  /** The DaemonSet's ids: a sidecar runs as some other uid, with the socket group. */
  private static final int SOCKET_GROUP = 65533;

  private static final int SIDECAR_UID = 65534;

  @TempDir Path dir;

  private static Path lockOf(Path socket) {
    return socket.resolveSibling(socket.getFileName() + ".lock");
  }

  private static String mode(Path file) throws IOException {
    return PosixFilePermissions.toString(
        Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS));
  }

  private static Object inode(Path file) throws IOException {
    return Files.getAttribute(file, "unix:ino", LinkOption.NOFOLLOW_LINKS);
  }

  @Test
  void createsTheSocketDirectoryOwnerAndGroupOnly() throws Exception {
    Path socket = dir.resolve("run/routesync/rs.sock");
    try (SocketLock lock = SocketLock.claim(socket)) {
      assertThat(Files.getPosixFilePermissions(socket.getParent()))
          .isEqualTo(PosixFilePermissions.fromString("rwxr-x---"));
      assertThat(lock.socket()).isEqualTo(socket.toAbsolutePath());
    }
  }

  @Test
  void refusesASocketAnotherLiveAgentServes() {
    Path socket = dir.resolve("rs.sock");
    try (SocketLock first = SocketLock.claim(socket)) {
      assertThatThrownBy(() -> SocketLock.claim(socket))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("another routesync agent is already serving")
          .hasMessageContaining(socket.toString());
    }
    // Released: the next agent may take it.
    SocketLock.claim(socket).close();
  }

  @Test
  void theLockFileIsReadableByItsOwnerOnly() throws Exception {
    Path socket = dir.resolve("rs.sock");
    try (SocketLock lock = SocketLock.claim(socket)) {
      assertThat(mode(lockOf(socket))).isEqualTo("rw-------");
      assertThat(Files.isRegularFile(lockOf(socket), LinkOption.NOFOLLOW_LINKS)).isTrue();
    }
  }

  @Test
  void aWorldReadableLockFileOfAnOlderVersionIsReplacedByAnOwnerOnlyOne() throws Exception {
    Path socket = dir.resolve("rs.sock");
    Path lockFile = lockOf(socket);
    Files.writeString(lockFile, "4242\n");
    Files.setPosixFilePermissions(lockFile, PosixFilePermissions.fromString("rw-r--r--"));
    Object old = inode(lockFile);

    try (SocketLock lock = SocketLock.claim(socket)) {
      assertThat(mode(lockFile)).isEqualTo("rw-------");
      // A new file, not a chmod: a descriptor opened while it was 0644 outlives any chmod.
      assertThat(inode(lockFile)).isNotEqualTo(old);
    }
    assertThat(mode(lockFile)).isEqualTo("rw-------");
  }

  @Test
  void aDescriptorOpenedOnTheOldWorldReadableLockFileCannotBlockTheNextAgent() throws Exception {
    Path socket = dir.resolve("rs.sock");
    Path lockFile = lockOf(socket);
    Files.writeString(lockFile, "4242\n");
    Files.setPosixFilePermissions(lockFile, PosixFilePermissions.fromString("rw-r--r--"));
    // A sidecar opened the old 0644 file before the upgrade, and takes its lock later. (This JVM
    // plays both parts: it refuses overlapping locks on one file as another process would.)
    try (FileChannel sidecar = FileChannel.open(lockFile, StandardOpenOption.READ)) {
      SocketLock.claim(socket).close(); // the first agent of the new version
      try (FileLock held = sidecar.lock(0, Long.MAX_VALUE, true)) {
        SocketLock.claim(socket).close(); // the one after it still starts
      }
    }
  }

  @Test
  void aLockFileThatIsASymbolicLinkIsRefused() throws Exception {
    Path socket = dir.resolve("rs.sock");
    Path target = Files.writeString(dir.resolve("elsewhere"), "keep");
    Files.createSymbolicLink(lockOf(socket), target);

    assertThatThrownBy(() -> SocketLock.claim(socket))
        .isInstanceOf(BadConfigurationException.class)
        .hasMessageContaining(lockOf(socket).toString())
        .hasMessageContaining("not a regular file");
    assertThat(Files.readString(target)).isEqualTo("keep");
  }

  @Test
  void aLockFileHoldingSomethingElseIsRefusedAndKept() throws Exception {
    // The agent's uid and mode, but not a lock file: --socket names a path beside somebody's file.
    Path socket = dir.resolve("notes");
    Files.writeString(lockOf(socket), "important text\n");
    Files.setPosixFilePermissions(lockOf(socket), PosixFilePermissions.fromString("rw-------"));

    assertThatThrownBy(() -> SocketLock.claim(socket))
        .isInstanceOf(BadConfigurationException.class)
        .hasMessageContaining(lockOf(socket).toString())
        .hasMessageContaining("not a routesync lock file");
    assertThat(Files.readString(lockOf(socket))).isEqualTo("important text\n");
  }

  @Test
  void aLockFileThatIsEmptyOrHoldsAProcessIdIsTaken() throws Exception {
    Path socket = dir.resolve("rs.sock");
    for (String content : new String[] {"", "4242\n", "4242"}) {
      Files.writeString(lockOf(socket), content);
      Files.setPosixFilePermissions(lockOf(socket), PosixFilePermissions.fromString("rw-------"));

      SocketLock.claim(socket).close();

      assertThat(Files.readString(lockOf(socket))).isEqualTo(ProcessHandle.current().pid() + "\n");
    }
  }

  @Test
  void aSocketDirectoryThatOthersMayWriteIsRefused() throws Exception {
    Path run = Files.createDirectory(dir.resolve("run"));
    Files.setPosixFilePermissions(run, PosixFilePermissions.fromString("rwxrwx---"));

    assertThatThrownBy(() -> SocketLock.claim(run.resolve("rs.sock")))
        .isInstanceOf(BadConfigurationException.class)
        .hasMessageContaining(run.toString())
        .hasMessageContaining("writable by its group or others")
        .message()
        .doesNotContain("\n");
  }

  @Test
  void aStickyWorldWritableDirectoryIsAccepted() throws Exception {
    // Like /tmp: others may add names but not replace ours, and the lock file's owner is checked.
    Path run = Files.createDirectory(dir.resolve("run"));
    Files.setAttribute(run, "unix:mode", 01777);

    SocketLock.claim(run.resolve("rs.sock")).close();
  }

  @Test
  void rejectsPathsTooLongForAUnixSocket() {
    Path socket = dir.resolve("x".repeat(120) + ".sock");
    assertThatThrownBy(() -> SocketLock.claim(socket))
        .isInstanceOf(BadConfigurationException.class)
        .hasMessageContaining("the limit is 107");
  }

  // ------------------------------------------------------------ as another user (needs root)

  private static boolean canRunAsAnotherUser() {
    return "root".equals(System.getProperty("user.name"))
        && Files.isExecutable(Path.of("/usr/bin/setpriv"));
  }

  /** The DaemonSet's layout: the socket directory 2750, owned by the agent, group 65533. */
  private Path socketDirectoryAsDeployed() throws IOException {
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx--x--x"));
    Path run = Files.createDirectory(dir.resolve("run"));
    Files.setAttribute(run, "unix:gid", SOCKET_GROUP);
    Files.setAttribute(run, "unix:mode", 02750);
    return run;
  }

  /**
   * Starts a JVM as the sidecar (another uid, in the socket group) that opens {@code file} for
   * reading and holds a shared lock on it until its stdin closes; prints "locked" once it does.
   */
  private Process sidecarLocking(Path file) throws IOException {
    Path source = dir.resolve("HoldSharedLock.java");
    Files.writeString(
        source,
        """
        import java.nio.channels.FileChannel;
        import java.nio.file.Path;
        import java.nio.file.StandardOpenOption;

        public class HoldSharedLock {
          public static void main(String[] args) throws Exception {
            try (FileChannel channel = FileChannel.open(Path.of(args[0]), StandardOpenOption.READ)) {
              channel.lock(0, Long.MAX_VALUE, true);
              System.out.println("locked");
              System.out.flush();
              System.in.read();
            }
          }
        }
        """);
    Files.setPosixFilePermissions(source, PosixFilePermissions.fromString("rw-r--r--"));
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    return new ProcessBuilder(
            "/usr/bin/setpriv",
            "--reuid=" + SIDECAR_UID,
            "--regid=" + SIDECAR_UID,
            "--groups=" + SOCKET_GROUP,
            java,
            "-Xshare:auto",
            "-XX:TieredStopAtLevel=1",
            source.toString(),
            file.toString())
        .redirectErrorStream(true)
        .redirectOutput(dir.resolve("sidecar-" + file.getFileName() + ".log").toFile())
        .start();
  }

  private String sidecarLog(Path file) throws IOException {
    return Files.readString(dir.resolve("sidecar-" + file.getFileName() + ".log"));
  }

  @Test
  @Timeout(value = 90, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aSidecarInTheSocketGroupCannotOpenTheLockFileSoCannotStopTheNextAgent() throws Exception {
    assumeTrue(canRunAsAnotherUser(), "needs root and setpriv to run a process as another user");
    Path run = socketDirectoryAsDeployed();
    Path socket = run.resolve("rs.sock");
    SocketLock.claim(socket).close(); // an agent ran here and stopped: the rollout's gap

    // Control: the sidecar reaches the directory and locks what its group may read.
    Path groupReadable = Files.writeString(run.resolve("group-readable"), "x");
    Files.setPosixFilePermissions(groupReadable, PosixFilePermissions.fromString("rw-r-----"));
    Process control = sidecarLocking(groupReadable);
    try {
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> sidecarLog(groupReadable).contains("locked") || !control.isAlive());
      assertThat(sidecarLog(groupReadable)).as("the control file").contains("locked");
    } finally {
      control.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }

    Process sidecar = sidecarLocking(lockOf(socket));
    try {
      assertThat(sidecar.waitFor(60, TimeUnit.SECONDS)).as("the sidecar gave up").isTrue();
      assertThat(sidecar.exitValue()).isNotZero();
      assertThat(sidecarLog(lockOf(socket)))
          .doesNotContain("locked")
          .contains("AccessDeniedException");
      SocketLock.claim(socket).close(); // the next agent starts
    } finally {
      sidecar.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void aLockFileOwnedByAnotherUserIsRefused() throws Exception {
    assumeTrue(canRunAsAnotherUser(), "needs root to give a file to another user");
    Path socket = dir.resolve("rs.sock");
    Files.writeString(lockOf(socket), "");
    Files.setPosixFilePermissions(lockOf(socket), PosixFilePermissions.fromString("rw-------"));
    Files.setAttribute(lockOf(socket), "unix:uid", SIDECAR_UID);

    assertThatThrownBy(() -> SocketLock.claim(socket))
        .isInstanceOf(BadConfigurationException.class)
        .hasMessageContaining(lockOf(socket).toString())
        .hasMessageContaining("uid " + SIDECAR_UID);
  }
}
