package dev.routesync.serve;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The refused peers' warning: one line per uid per minute, and bounded memory. */
class PeerRefusalLogTest {

  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private final PeerRefusalLog log = new PeerRefusalLog(now::get);

  @Test
  void oneLinePerUidPerMinuteSayingHowManyWereLeftOut() {
    Peer peer = new Peer(4711, 1000, 1000);
    assertThat(log.refused(peer, "uid not in --allow-uids"))
        .isEqualTo(
            "refused a socket connection from uid=1000 gid=1000 pid=4711: uid not in"
                + " --allow-uids");
    for (int i = 0; i < 100; i++) {
      assertThat(log.refused(peer, "uid not in --allow-uids")).isNull();
    }
    // Another uid has its own line.
    assertThat(log.refused(new Peer(4712, 1001, 1001), "uid not in --allow-uids")).isNotNull();
    advance(PeerRefusalLog.INTERVAL.minusSeconds(1));
    assertThat(log.refused(peer, "uid not in --allow-uids")).isNull();
    advance(Duration.ofSeconds(1));
    assertThat(log.refused(peer, "uid not in --allow-uids"))
        .endsWith("(101 more refusals not logged in the last minute)");
  }

  @Test
  void unreadableCredentialsAreOneUidOfTheirOwn() {
    assertThat(log.refused(null, "no peer credentials"))
        .isEqualTo(
            "refused a socket connection from a peer whose credentials could not be read: no peer"
                + " credentials");
    assertThat(log.refused(null, "no peer credentials")).isNull();
  }

  @Test
  void manyDistinctUidsShareOneLineAMinuteBeyondTheRememberedOnes() {
    int logged = 0;
    for (int uid = 0; uid < 10_000; uid++) {
      if (log.refused(new Peer(1, uid, 0), "uid not in --allow-uids") != null) {
        logged++;
      }
    }
    assertThat(log.remembered()).isEqualTo(PeerRefusalLog.MAX_UIDS);
    assertThat(logged).isEqualTo(PeerRefusalLog.MAX_UIDS + 1);
    advance(PeerRefusalLog.INTERVAL);
    // A minute later every remembered uid has expired: the memory is free again.
    assertThat(log.refused(new Peer(1, 20_000, 0), "uid not in --allow-uids")).isNotNull();
    assertThat(log.remembered()).isEqualTo(1);
  }

  private void advance(Duration by) {
    now.addAndGet(by.toNanos());
  }
}
