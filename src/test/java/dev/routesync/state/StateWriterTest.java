package dev.routesync.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.routesync.table.Endpoint;
import dev.routesync.table.ServiceKey;
import dev.routesync.table.ServiceState;
import dev.routesync.table.TableTrust;
import dev.routesync.table.TableWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The state writer: trailing edge, rate-limited, only servable tables, failures retried. */
class StateWriterTest {

  private static final Duration FLUSH = Duration.ofMillis(200);
  private static final Duration WAIT = Duration.ofSeconds(10);

  @TempDir Path dir;

  private final AtomicInteger ok = new AtomicInteger();
  private final AtomicInteger failed = new AtomicInteger();
  private final StateObserver observer =
      new StateObserver() {
        @Override
        public void loadFailed(LoadFailure reason) {}

        @Override
        public void restored(int services) {}

        @Override
        public void written(boolean success) {
          (success ? ok : failed).incrementAndGet();
        }
      };
  private final TableWriter table = new TableWriter(Clock.systemUTC(), 64, 1000);
  private final TableTrust trust = TableTrust.untrusted();
  private StateWriter writer;

  @AfterEach
  void close() throws Exception {
    if (writer != null) {
      writer.close().get(10, TimeUnit.SECONDS);
    }
  }

  private StateWriter writer(Path path) {
    writer =
        new StateWriter(new StateFile(path), FLUSH, Clock.systemUTC(), Optional::empty, observer);
    writer.attach(table, trust);
    return writer;
  }

  private void publish(int n) {
    table.publish(
        Map.of(
            new ServiceKey("shop", "web"),
            ServiceState.of(
                List.of(
                    new Endpoint("10.0.0." + n, List.of(), null, null, null, true, true, false)))),
        List.of());
  }

  private long persistedVersion(Path path) throws Exception {
    return TableCodec.decode(Files.readAllBytes(path), Instant.now(), 64).table().version();
  }

  @Test
  void anUntrustedTableIsNeverWrittenTheTrustedOneAtOnce() throws Exception {
    Path path = dir.resolve("table.bin");
    writer(path);
    publish(1); // the placeholder era: nothing is served, nothing may be persisted
    assertThat(Files.exists(path)).isFalse();

    trust.raise(TableTrust.Level.SYNCED);

    await().atMost(WAIT).until(() -> ok.get() == 1);
    assertThat(persistedVersion(path)).isEqualTo(table.current().version());
  }

  @Test
  void aBurstIsWrittenAtMostOncePerFlushAndItsLastVersionAlways() throws Exception {
    Path path = dir.resolve("table.bin");
    trust.raise(TableTrust.Level.SYNCED);
    writer(path);
    long start = System.nanoTime();
    for (int i = 1; i <= 50; i++) {
      publish(i);
    }
    long last = table.current().version();

    await().atMost(WAIT).until(() -> Files.exists(path) && persistedVersion(path) == last);
    long elapsed = System.nanoTime() - start;
    // The first publish at once (leading edge), then at most one write per flush since.
    assertThat(ok.get()).isBetween(1, 2 + (int) (elapsed / FLUSH.toNanos()));
    assertThat(failed.get()).isZero();
  }

  @Test
  void aFailedWriteIsCountedAndRetriedAtTheNextTick() throws Exception {
    // A regular file where the directory should be: deterministic even as root.
    Path blocker = dir.resolve("blocker");
    Files.writeString(blocker, "not a directory");
    Path path = blocker.resolve("table.bin");
    trust.raise(TableTrust.Level.SYNCED);
    writer(path);

    publish(1);
    await().atMost(WAIT).until(() -> failed.get() >= 2); // the first try, then a retry

    Files.delete(blocker);
    await().atMost(WAIT).until(() -> ok.get() >= 1);
    assertThat(persistedVersion(path)).isEqualTo(table.current().version());
  }

  @Test
  void closeWritesTheServedTableMarkedComplete() throws Exception {
    Path path = dir.resolve("table.bin");
    trust.raise(TableTrust.Level.SYNCED);
    writer(path);
    publish(1);
    publish(2);

    writer.close().get(10, TimeUnit.SECONDS);
    writer = null;

    StateFile.Found found = (StateFile.Found) new StateFile(path).load(Instant.now(), 64);
    assertThat(found.complete()).isTrue();
    assertThat(found.persisted().table().version()).isEqualTo(table.current().version());
  }
}
