package dev.routesync.table;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class FreshnessTest {

  private final TableTrust trust = TableTrust.untrusted();
  private final AtomicLong down = new AtomicLong();
  private final Freshness freshness = new Freshness(trust, down::get, Duration.ofSeconds(10));

  @Test
  void staleUntilSyncedThenOnlyWhileDownLongerThanRelistAfter() {
    assertThat(freshness.stale()).isTrue();
    trust.raise(TableTrust.Level.RESTORED);
    assertThat(freshness.stale()).isTrue();
    assertThat(freshness.level()).isEqualTo(TableTrust.Level.RESTORED);
    trust.raise(TableTrust.Level.SYNCED);
    assertThat(freshness.stale()).isFalse();

    down.set(Duration.ofSeconds(10).toNanos());
    assertThat(freshness.stale()).as("down exactly relist-after").isFalse();
    down.set(Duration.ofSeconds(11).toNanos());
    assertThat(freshness.stale()).isTrue();
    assertThat(freshness.disconnectedFor()).isEqualTo(Duration.ofSeconds(11));
    down.set(0);
    assertThat(freshness.stale()).isFalse();
  }

  @Test
  void connectedOnlyOnceHeardFromAndWhileNoWatchIsDown() {
    trust.raise(TableTrust.Level.SYNCED);
    assertThat(freshness.connected()).as("never heard from").isFalse();
    freshness.heard(Instant.parse("2026-12-01T14:02:03.123456Z"));
    assertThat(freshness.connected()).isTrue();
    assertThat(freshness.syncedAt()).contains(Instant.parse("2026-12-01T14:02:03.123456Z"));
    down.set(1);
    assertThat(freshness.connected()).isFalse();
    // An older time never moves synced_at back.
    freshness.heard(Instant.parse("2026-12-01T14:00:00Z"));
    assertThat(freshness.syncedAt()).contains(Instant.parse("2026-12-01T14:02:03.123456Z"));
  }

  @Test
  void anUnwatchedTableIsStaleOnlyBelowSynced() {
    TableTrust restored = TableTrust.untrusted();
    Freshness unwatched = Freshness.unwatched(restored);
    restored.raise(TableTrust.Level.RESTORED);
    assertThat(unwatched.stale()).isTrue();
    restored.raise(TableTrust.Level.SYNCED);
    assertThat(unwatched.stale()).isFalse();
    assertThat(unwatched.disconnectedFor()).isZero();
    assertThat(unwatched.syncedAt()).isEmpty();
    assertThat(unwatched.trust()).isSameAs(restored);
  }
}
