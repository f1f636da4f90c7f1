package dev.routesync.table;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** A warm start seeds synced_at from the state file, and stays stale until a list confirms it. */
class FreshnessRestoredTest {

  @Test
  void aRestoredTableReportsItsFilesSyncedAtAndStaysStale() {
    TableTrust trust = TableTrust.untrusted();
    Freshness freshness = new Freshness(trust, () -> 0, Duration.ofSeconds(30));
    Instant lastSynced = Instant.parse("2026-12-01T10:00:00.123456Z");

    trust.raise(TableTrust.Level.RESTORED);
    freshness.restored(lastSynced);

    assertThat(freshness.syncedAt()).contains(lastSynced);
    assertThat(freshness.stale()).isTrue();
    // A later list moves it on; an older seed never moves it back.
    Instant listed = lastSynced.plusSeconds(60);
    freshness.heard(listed);
    freshness.restored(lastSynced);
    assertThat(freshness.syncedAt()).contains(listed);
    trust.raise(TableTrust.Level.SYNCED);
    assertThat(freshness.stale()).isFalse();
  }

  @Test
  void aRestoredSyncedAtIsNotAConnection() {
    // The file's synced_at is the previous agent's word: until this process hears the API server,
    // Status must not say "connected" (a warm start with the API server down looked connected).
    TableTrust trust = TableTrust.untrusted();
    Freshness freshness = new Freshness(trust, () -> 0, Duration.ofSeconds(30));
    trust.raise(TableTrust.Level.RESTORED);
    freshness.restored(Instant.parse("2026-12-01T10:00:00Z"));

    assertThat(freshness.connected()).isFalse();

    freshness.heard(Instant.parse("2026-12-01T10:05:00Z"));
    assertThat(freshness.connected()).isTrue();
  }
}
