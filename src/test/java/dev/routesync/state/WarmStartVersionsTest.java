package dev.routesync.state;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.table.RoutingTable;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Which version a restored table is served at: continued after a drain, jumped after a crash. */
class WarmStartVersionsTest {

  private static final long COLD_START = 1_800_000_000_000_000L;

  private static StateFile.Found found(RoutingTable table, boolean complete) {
    return new StateFile.Found(
        new PersistedTable(table, RandomTables.T0, Optional.empty()), complete);
  }

  @Test
  void afterAGracefulStopTheVersionsContinue() {
    RoutingTable table = RandomTables.table(new Random(1));

    RoutingTable served = WarmStart.tableToServe(found(table, true), COLD_START, 64);

    assertThat(served.version()).isEqualTo(table.version());
    // A sidecar that saw that version resumes with nothing to send.
    assertThat(served.changedSince(table.version())).contains(java.util.Set.of());
  }

  @Test
  void afterACrashTheVersionJumpsToAColdStartsSoNoNumberIsReused() {
    RoutingTable table = RandomTables.table(new Random(2));

    RoutingTable served = WarmStart.tableToServe(found(table, false), COLD_START, 64);

    assertThat(served.version()).isEqualTo(COLD_START);
    assertThat(List.copyOf(served.services())).isEqualTo(List.copyOf(table.services()));
    // Any version the old agent reached is unknown here: its holder gets a snapshot.
    assertThat(served.changedSince(table.version())).isEmpty();
    assertThat(served.changedSince(table.version() + 1)).isEmpty();
  }

  @Test
  void aFileFromAFasterClockStillOnlyGrows() {
    RoutingTable table = RoutingTable.restored(COLD_START + 500, List.of(), Instant.EPOCH, 64);

    assertThat(WarmStart.tableToServe(found(table, false), COLD_START, 64).version())
        .isEqualTo(COLD_START + 501);
  }
}
