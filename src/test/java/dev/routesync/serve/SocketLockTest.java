package dev.routesync.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SocketLockTest {

  @TempDir Path dir;

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
  void replacesAStaleSocketFileLeftByADeadAgent() throws Exception {
    Path socket = dir.resolve("rs.sock");
    Files.writeString(socket, "stale");
    try (SocketLock lock = SocketLock.claim(socket)) {
      assertThat(socket).doesNotExist();
    }
  }

  @Test
  void rejectsPathsTooLongForAUnixSocket() {
    Path socket = dir.resolve("x".repeat(120) + ".sock");
    assertThatThrownBy(() -> SocketLock.claim(socket))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("the limit is 107");
  }
}
