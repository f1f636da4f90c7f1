package dev.routesync.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.routesync.files.FileTrust;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The state file is loaded only when it is the agent's own, and the agent writes only over its own
 * kind of file. "Another uid" is real where the test runs as root (the file is chown-ed to nobody);
 * elsewhere the file stays the test's and the agent is judged as another uid would be.
 */
class StateFileTrustTest {

  private static final Instant NOW = RandomTables.T0.plusSeconds(30);
  private static final int NOBODY = 65534;

  @TempDir Path dir;

  private Path goodFile(Path directory) throws IOException {
    Path path = directory.resolve("table.bin");
    new StateFile(path)
        .write(RandomTables.table(new Random(3)), RandomTables.T0, Optional.empty(), false);
    return path;
  }

  /** The trust of an agent for which {@code file} belongs to another uid. */
  private static FileTrust makeAnotherUidsFile(Path file) throws IOException {
    int self = FileTrust.currentUid();
    if (self == 0) {
      Files.setAttribute(file, "unix:uid", NOBODY);
      Files.setAttribute(file, "unix:gid", NOBODY);
      return new FileTrust(0);
    }
    return new FileTrust(self + 1);
  }

  private static void chmod(Path path, String mode) throws IOException {
    Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(mode));
  }

  private static StateFile.Failed failed(StateFile.Loaded loaded) {
    assertThat(loaded).isInstanceOf(StateFile.Failed.class);
    return (StateFile.Failed) loaded;
  }

  @Test
  void anotherUidsWorldWritableFileInAStickyDirectoryIsNotLoaded() throws Exception {
    // The case as reported: any local user could plant the routes served during an outage.
    Path shared = Files.createDirectory(dir.resolve("shared"));
    Files.setAttribute(shared, "unix:mode", 01777); // like /tmp
    Path path = goodFile(shared);
    FileTrust agent = makeAnotherUidsFile(path);
    chmod(path, "rw-rw-rw-");

    StateFile.Failed failed = failed(new StateFile(path, agent).load(NOW, 1024));

    assertThat(failed.reason()).isEqualTo(LoadFailure.UNTRUSTED);
    assertThat(failed.message()).contains("belongs to uid", "not to the agent's uid");
  }

  @Test
  void anotherUidsPrivateFileIsNotLoaded() throws Exception {
    Path path = goodFile(dir);
    FileTrust agent = makeAnotherUidsFile(path);

    assertThat(failed(new StateFile(path, agent).load(NOW, 1024)).reason())
        .isEqualTo(LoadFailure.UNTRUSTED);
  }

  @Test
  void aFileItsGroupCanWriteIsNotLoaded() throws Exception {
    Path path = goodFile(dir);
    chmod(path, "rw-rw----");

    StateFile.Failed failed = failed(new StateFile(path).load(NOW, 1024));

    assertThat(failed.reason()).isEqualTo(LoadFailure.UNTRUSTED);
    assertThat(failed.message()).contains("writable by its group or others (mode 0660)");
  }

  @Test
  void aFileInADirectoryOthersCanWriteIsNotLoaded() throws Exception {
    Path open = Files.createDirectory(dir.resolve("open"));
    Path path = goodFile(open);
    chmod(open, "rwxrwxrwx"); // not sticky: anybody can replace the file

    StateFile.Failed failed = failed(new StateFile(path).load(NOW, 1024));

    assertThat(failed.reason()).isEqualTo(LoadFailure.UNTRUSTED);
    assertThat(failed.message()).contains("its directory " + open, "(mode 0777)");
  }

  @Test
  void theAgentsOwnFileInAStickyDirectoryLoads() throws Exception {
    // The socket's rule: in a sticky directory nobody else can replace the agent's own file.
    Path shared = Files.createDirectory(dir.resolve("shared"));
    Files.setAttribute(shared, "unix:mode", 01777); // like /tmp
    Path path = goodFile(shared);

    assertThat(new StateFile(path).load(NOW, 1024)).isInstanceOf(StateFile.Found.class);
  }

  @Test
  void aCompletionMarkerOfAnotherUidDoesNotCount() throws Exception {
    Path path = goodFile(dir);
    Path marker = dir.resolve("table.bin.complete");
    Files.createFile(marker);
    // The file and the marker need different owners: a real chown, so root only.
    assumeTrue(FileTrust.currentUid() == 0, "needs root to give the marker another owner");
    Files.setAttribute(marker, "unix:uid", NOBODY);
    FileTrust agent = FileTrust.ofThisProcess();

    StateFile.Loaded loaded = new StateFile(path, agent).load(NOW, 1024);

    assertThat(((StateFile.Found) loaded).complete()).isFalse();
    assertThat(marker).doesNotExist(); // consumed all the same
  }

  @Test
  void nothingAStateFileAnEmptyFileOrATornHeaderMayBeReplaced() throws Exception {
    assertThat(new StateFile(dir.resolve("missing.bin")).refusal()).isEmpty();
    assertThat(new StateFile(goodFile(dir)).refusal()).isEmpty();
    assertThat(new StateFile(Files.createFile(dir.resolve("empty.bin"))).refusal()).isEmpty();
    assertThat(
            new StateFile(Files.write(dir.resolve("torn.bin"), new byte[] {0x52, 0x53})).refusal())
        .isEmpty();
    // A file of an older or newer format version is still the agent's own kind.
    Path other = goodFile(Files.createDirectory(dir.resolve("v7")));
    byte[] bytes = Files.readAllBytes(other);
    java.nio.ByteBuffer.wrap(bytes).putShort(4, (short) 7);
    Files.write(other, bytes);
    assertThat(new StateFile(other).refusal()).isEmpty();
  }

  @Test
  void aKubeconfigIsRefusedAndAWriteLeavesItUntouched() throws Exception {
    Path kubeconfig =
        Files.writeString(dir.resolve("kubeconfig"), "apiVersion: v1\nkind: Config\n");
    StateFile file = new StateFile(kubeconfig);

    assertThat(file.refusal()).get().asString().contains("not a routesync state file");
    assertThatThrownBy(
            () ->
                file.write(
                    RandomTables.table(new Random(4)), RandomTables.T0, Optional.empty(), false))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("not replacing it");
    assertThat(kubeconfig).hasContent("apiVersion: v1\nkind: Config\n");
    try (var entries = Files.list(dir)) {
      assertThat(entries.map(p -> p.getFileName().toString())).containsExactly("kubeconfig");
    }
  }

  @Test
  void aSocketADirectoryAndALinkAreRefused() throws Exception {
    Path socket = dir.resolve("rs.sock");
    try (ServerSocketChannel listening = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      listening.bind(UnixDomainSocketAddress.of(socket));
      assertThat(new StateFile(socket).refusal()).get().asString().contains("a socket");
      assertThatThrownBy(
              () ->
                  new StateFile(socket)
                      .write(
                          RandomTables.table(new Random(5)),
                          RandomTables.T0,
                          Optional.empty(),
                          false))
          .isInstanceOf(IOException.class);
      assertThat(Files.getAttribute(socket, "unix:mode"))
          .matches(m -> ((Integer) m & 0170000) == 0140000);
    }
    assertThat(new StateFile(Files.createDirectory(dir.resolve("d"))).refusal())
        .get()
        .asString()
        .contains("a directory");
    Path link = Files.createSymbolicLink(dir.resolve("link"), goodFile(dir));
    assertThat(new StateFile(link).refusal()).get().asString().contains("a symbolic link");
  }
}
