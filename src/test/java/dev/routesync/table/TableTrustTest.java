package dev.routesync.table;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class TableTrustTest {

  @Test
  void anUntrustedTableIsNotServableUntilRaisedAndSaysWhy() {
    TableTrust trust = TableTrust.untrusted();

    assertThat(trust.servable()).isFalse();
    assertThat(trust.whyNotServable()).startsWith(TableTrust.NOT_SYNCED + ": ");

    trust.raise(TableTrust.Level.SYNCED);

    assertThat(trust.servable()).isTrue();
    assertThat(trust.level()).isEqualTo(TableTrust.Level.SYNCED);
    assertThat(trust.whyNotServable()).isEmpty();
  }

  @Test
  void theLevelOnlyRisesAndListenersHearEachRiseOnce() {
    TableTrust trust = TableTrust.untrusted();
    AtomicInteger rises = new AtomicInteger();
    trust.onRaise(rises::incrementAndGet);

    trust.raise(TableTrust.Level.NONE);
    trust.raise(TableTrust.Level.SYNCED);
    trust.raise(TableTrust.Level.SYNCED);
    trust.raise(TableTrust.Level.NONE);

    assertThat(rises).hasValue(1);
    assertThat(trust.level()).isEqualTo(TableTrust.Level.SYNCED);
    assertThat(TableTrust.synced().servable()).isTrue();
  }
}
