package dev.routesync.serve;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The debug listener's refusals: one line per reason per minute, the client's text made safe. */
class DebugRefusalLogTest {

  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private final DebugRefusalLog log = new DebugRefusalLog(now::get);

  @Test
  void oneLinePerReasonPerMinuteSayingHowManyWereLeftOut() {
    assertThat(log.refused(DebugRefusal.HOST, "GET /debug/bundle", "evil.example:9902"))
        .startsWith(
            "debug listener: refused 'GET /debug/bundle': Host 'evil.example:9902' is not"
                + " localhost");
    for (int i = 0; i < 100; i++) {
      assertThat(log.refused(DebugRefusal.HOST, "GET /status", "evil.example")).isNull();
    }
    // The other reason has its own line.
    assertThat(log.refused(DebugRefusal.ORIGIN, "POST /logging", "Origin http://evil.example"))
        .contains("another origin", "'Origin http://evil.example'");
    advance(DebugRefusalLog.INTERVAL.minusSeconds(1));
    assertThat(log.refused(DebugRefusal.HOST, "GET /status", "evil.example")).isNull();
    advance(Duration.ofSeconds(1));
    assertThat(log.refused(DebugRefusal.HOST, "GET /status", "evil.example"))
        .contains("; 101 more not logged in the last minute.");
    assertThat(log.refused(DebugRefusal.HOST, "GET /status", "evil.example")).isNull();
  }

  @Test
  void whatTheClientSentIsCutAndHasNoControlCharacters() {
    String line =
        log.refused(DebugRefusal.HOST, "GET /status", "evil\r\nFAKE LOG LINE" + "x".repeat(1_000));
    assertThat(line).doesNotContain("\r", "\n").contains("'evil??FAKE LOG LINE").contains("x...'");
    assertThat(line.length()).isLessThan(500);
  }

  private void advance(Duration by) {
    now.addAndGet(by.toNanos());
  }
}
