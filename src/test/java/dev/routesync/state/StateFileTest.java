package dev.routesync.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.routesync.table.Endpoint;
import dev.routesync.table.Port;
import dev.routesync.table.RoutingTable;
import dev.routesync.table.ServiceEndpoints;
import dev.routesync.table.ServiceKey;
import dev.routesync.table.ServiceTraffic;
import dev.routesync.table.TableLimits;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The state file on disk: atomic, private, loaded whole or not at all. */
class StateFileTest {

  private static final java.time.Instant NOW = RandomTables.T0.plusSeconds(30);

  @TempDir Path dir;

  @Test
  void aWrittenTableLoadsBackAndIsPrivate() throws Exception {
    Path path = dir.resolve("state/deeper/table.bin");
    RoutingTable table = RandomTables.table(new Random(7));
    StateFile file = new StateFile(path);

    file.write(table, RandomTables.T0, Optional.of(RandomTables.T0), false);

    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(path)))
        .isEqualTo("rw-------");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(path.getParent())))
        .isEqualTo("rwx------");
    // Nothing left beside it but the file itself: the temporary file was renamed into place.
    try (var entries = Files.list(path.getParent())) {
      assertThat(entries.map(p -> p.getFileName().toString()).toList())
          .containsExactly("table.bin");
    }
    StateFile.Loaded loaded = file.load(NOW, 1024);
    assertThat(loaded).isInstanceOf(StateFile.Found.class);
    StateFile.Found found = (StateFile.Found) loaded;
    assertThat(found.complete()).isFalse();
    assertThat(List.copyOf(found.persisted().table().services()))
        .isEqualTo(List.copyOf(table.services()));
  }

  @Test
  void aGracefulStopsWriteIsCompleteOnceOnly() throws Exception {
    StateFile file = new StateFile(dir.resolve("table.bin"));
    RoutingTable table = RandomTables.table(new Random(8));
    file.write(table, RandomTables.T0, Optional.empty(), true);

    assertThat(((StateFile.Found) file.load(NOW, 1024)).complete()).isTrue();
    // The load consumed the marker: a crash of the agent that loaded it is not a graceful stop.
    assertThat(((StateFile.Found) file.load(NOW, 1024)).complete()).isFalse();
  }

  @Test
  void aNewWriteReplacesTheOldOneWhole() throws Exception {
    StateFile file = new StateFile(dir.resolve("table.bin"));
    Random random = new Random(9);
    RoutingTable first = RandomTables.table(random);
    RoutingTable second = RandomTables.table(random);
    file.write(first, RandomTables.T0, Optional.empty(), false);
    // A crashed writer's temporary file is no obstacle.
    Files.writeString(dir.resolve(".table.bin.tmp"), "half a write");
    file.write(second, RandomTables.T0, Optional.empty(), false);

    StateFile.Found found = (StateFile.Found) file.load(NOW, 1024);
    assertThat(List.copyOf(found.persisted().table().services()))
        .isEqualTo(List.copyOf(second.services()));
    assertThat(Files.exists(dir.resolve(".table.bin.tmp"))).isFalse();
  }

  @Test
  void aTableOverThePortLimitIsNotWrittenAndTheLastGoodFileStays() throws Exception {
    // Translation keeps tables within the limits; should one not be, the writer refuses what the
    // reader would, instead of replacing a good file with one that no start can load.
    StateFile file = new StateFile(dir.resolve("table.bin"));
    RoutingTable good = RandomTables.table(new Random(10));
    file.write(good, RandomTables.T0, Optional.empty(), false);
    List<Port> ports =
        IntStream.range(0, TableLimits.MAX_PORTS + 1)
            .mapToObj(i -> new Port(String.format("p%04d", i), 1 + i, "TCP"))
            .toList();
    RoutingTable over =
        RoutingTable.restored(
            good.version() + 1,
            List.of(
                new ServiceEndpoints(
                    new ServiceKey("shop", "wide"),
                    1,
                    List.of(new Endpoint("10.0.0.1", ports, null, null, null, true, true, false)),
                    List.of(),
                    ServiceTraffic.DEFAULT)),
            RandomTables.T0,
            8);

    assertThatThrownBy(() -> file.write(over, RandomTables.T0, Optional.empty(), false))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("1025 ports");

    StateFile.Found found = (StateFile.Found) file.load(NOW, 1024);
    assertThat(List.copyOf(found.persisted().table().services()))
        .isEqualTo(List.copyOf(good.services()));
  }

  @Test
  void noFileIsNotAFailure() {
    assertThat(new StateFile(dir.resolve("table.bin")).load(NOW, 1024))
        .isInstanceOf(StateFile.Missing.class);
  }

  @Test
  void aDirectoryInPlaceOfTheFileIsNotAFile() throws Exception {
    Files.createDirectory(dir.resolve("table.bin"));
    assertThat(new StateFile(dir.resolve("table.bin")).load(NOW, 1024))
        .isEqualTo(new StateFile.Failed(LoadFailure.NOT_A_FILE, "a directory is in its place"));
  }

  @Test
  void aSymlinkIsNotFollowed() throws Exception {
    StateFile real = new StateFile(dir.resolve("real.bin"));
    real.write(RandomTables.table(new Random(10)), RandomTables.T0, Optional.empty(), false);
    Files.createSymbolicLink(dir.resolve("table.bin"), dir.resolve("real.bin"));
    StateFile.Loaded loaded = new StateFile(dir.resolve("table.bin")).load(NOW, 1024);
    assertThat(loaded).isInstanceOf(StateFile.Failed.class);
    assertThat(((StateFile.Failed) loaded).reason()).isEqualTo(LoadFailure.NOT_A_FILE);
  }

  @Test
  void aFileOverTheCapIsOversized() throws Exception {
    Path path = dir.resolve("table.bin");
    try (RandomAccessFile sparse = new RandomAccessFile(path.toFile(), "rw")) {
      sparse.setLength(TableCodec.MAX_FILE_BYTES + 1); // sparse: no disk used
    }
    StateFile.Loaded loaded = new StateFile(path).load(NOW, 1024);
    assertThat(((StateFile.Failed) loaded).reason()).isEqualTo(LoadFailure.OVERSIZED);
  }

  @Test
  void aDamagedFileOnDiskFailsWithItsReason() throws Exception {
    Path path = dir.resolve("table.bin");
    StateFile file = new StateFile(path);
    file.write(RandomTables.table(new Random(11)), RandomTables.T0, Optional.empty(), false);
    byte[] bytes = Files.readAllBytes(path);
    bytes[bytes.length / 2] ^= 0x10;
    Files.write(path, bytes);
    StateFile.Loaded loaded = file.load(NOW, 1024);
    assertThat(((StateFile.Failed) loaded).reason()).isEqualTo(LoadFailure.CHECKSUM);
  }
}
