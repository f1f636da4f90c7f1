package dev.routesync.sidecars;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.table.ServiceKey;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The streams' sync states on a fake clock: behind, caught up, NACKs, bounds, propagation. */
class SidecarsTest {

  private static final List<String> ADS_TYPES = List.of("lds", "rds", "cds", "eds");
  private static final int EDS = 3;

  private final AtomicLong now = new AtomicLong(1_000_000);
  private final Sidecars sidecars = new Sidecars(now::get, Duration.ofSeconds(5));

  @Test
  void aStreamThatDoesNotAcknowledgeIsBehindFromThePublishAndCountsPastTheThreshold() {
    SyncState state = sidecars.open(Protocol.ADS, new PeerIds(1000, 42), ADS_TYPES);
    state.named("sidecar~10.0.0.1~cart");
    now.addAndGet(1_000);
    state.sent(EDS, 7, 0, now.get()); // a push, published now

    now.addAndGet(4_000);
    assertThat(sidecars.behind()).isZero();
    now.addAndGet(2_000);
    assertThat(sidecars.behind()).isEqualTo(1);
    ClientView view = sidecars.snapshot(10).clients().get(0);
    assertThat(view.behindMillis()).isEqualTo(6_000);
    assertThat(view.types().get(EDS)).isEqualTo(new TypeSync("eds", 7, 0));
    assertThat(view.name()).isEqualTo("sidecar~10.0.0.1~cart");
    assertThat(view.peer()).isEqualTo(new PeerIds(1000, 42));

    state.acked(EDS);
    state.caughtUp();
    assertThat(sidecars.behind()).isZero();
    assertThat(sidecars.snapshot(10).clients().get(0).types().get(EDS))
        .isEqualTo(new TypeSync("eds", 7, 7));
  }

  @Test
  void anOldTableSentToANewStreamDoesNotMakeItBehindFromBeforeItOpened() {
    long publishedLongAgo = now.get() - 3_600_000;
    SyncState state = sidecars.open(Protocol.ADS, PeerIds.UNKNOWN, ADS_TYPES);
    now.addAndGet(100);
    state.sent(EDS, 3, 0, publishedLongAgo);
    assertThat(sidecars.snapshot(1).clients().get(0).behindMillis()).isEqualTo(100);
  }

  @Test
  void aNackKeepsItsMessageBoundedAndPrintable() {
    SyncState state = sidecars.open(Protocol.DELTA_ADS, PeerIds.UNKNOWN, ADS_TYPES);
    state.sent(EDS, 9, 0, now.get());
    state.nacked(EDS, "bad\u001b[31m" + "x".repeat(5_000));
    ClientView view = sidecars.snapshot(1).clients().get(0);
    assertThat(view.lastNackType()).isEqualTo("eds");
    assertThat(view.lastNack())
        .startsWith("bad?[31mxxx")
        .endsWith("...")
        .hasSize(ClientText.MAX_NACK + 3);
    assertThat(view.types().get(EDS).ackedVersion()).isZero();
  }

  @Test
  void aNameIsBoundedToo() {
    SyncState state = sidecars.open(Protocol.WATCH, PeerIds.UNKNOWN, List.of("services"));
    state.named("n".repeat(10_000));
    assertThat(sidecars.snapshot(1).clients().get(0).name()).hasSize(ClientText.MAX_NAME + 3);
  }

  @Test
  void aNameKeepsNoCharacterThatChangesHowTheLineReads() {
    SyncState state = sidecars.open(Protocol.ADS, PeerIds.UNKNOWN, ADS_TYPES);
    StringBuilder hostile = new StringBuilder("n");
    // C0 and C1 controls, the bidi embeddings, overrides, isolates and marks, the line and
    // paragraph separators, and other format characters (zero-width space, BOM, word joiner).
    for (int c :
        new int[] {
          0x00, 0x07, 0x1B, 0x7F, 0x85, 0x9B, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066,
          0x2067, 0x2068, 0x2069, 0x200E, 0x200F, 0x061C, 0x2028, 0x2029, 0x200B, 0xFEFF, 0x2060
        }) {
      hostile.appendCodePoint(c).append('x');
    }
    state.named(hostile.toString());

    assertThat(sidecars.snapshot(1).clients().get(0).name()).isEqualTo("n" + "?x".repeat(23));
  }

  @Test
  void aNameIsCutBetweenCodePointsNeverInsideOne() {
    SyncState state = sidecars.open(Protocol.WATCH, PeerIds.UNKNOWN, List.of("services"));
    String emoji = "\uD83D\uDE00";
    state.named("a".repeat(ClientText.MAX_NAME - 1) + emoji + emoji);

    assertThat(sidecars.snapshot(1).clients().get(0).name())
        .isEqualTo("a".repeat(ClientText.MAX_NAME - 1) + emoji + "...");
  }

  @Test
  void aLoneSurrogateIsNotKept() {
    SyncState state = sidecars.open(Protocol.WATCH, PeerIds.UNKNOWN, List.of("services"));
    state.named("x\uD83Dy\uDE00z");

    assertThat(sidecars.snapshot(1).clients().get(0).name()).isEqualTo("x?y?z");
  }

  @Test
  void theAnswerListsAtMostTheLimitTheMostBehindFirstAndSaysHowManyThereAre() {
    long opened = now.get();
    List<SyncState> states = new java.util.ArrayList<>();
    for (int i = 0; i < 2_000; i++) {
      SyncState state = sidecars.open(Protocol.WATCH, PeerIds.UNKNOWN, List.of("services"));
      state.named("c" + i);
      states.add(state);
    }
    now.addAndGet(10_000);
    for (int i = 0; i < 2_000; i += 100) {
      states.get(i).sent(0, 5, 0, opened + i); // 20 behind, the smaller i the longer
    }

    ClientsSnapshot answer = sidecars.snapshot(1_000_000);
    assertThat(answer.limit()).isEqualTo(Sidecars.MAX_LIMIT);
    assertThat(answer.clients()).hasSize(Sidecars.MAX_LIMIT);
    assertThat(answer.total()).isEqualTo(2_000);
    assertThat(answer.truncated()).isTrue();
    assertThat(answer.behind()).isEqualTo(20);
    assertThat(answer.clients().get(0).name()).isEqualTo("c0");
    assertThat(answer.clients().subList(0, 20))
        .allSatisfy(view -> assertThat(view.behindMillis()).isGreaterThan(5_000));
    assertThat(sidecars.snapshot(0).clients()).hasSize(1);
  }

  @Test
  void aClosedStreamIsNoLongerListed() {
    SyncState state = sidecars.open(Protocol.ADS, PeerIds.UNKNOWN, ADS_TYPES);
    state.closed();
    state.closed();
    assertThat(sidecars.size()).isZero();
    assertThat(sidecars.snapshot(10).clients()).isEmpty();
  }

  @Test
  void anAckOfAResponseCarryingATriggeredChangeRecordsItsPropagation() {
    ServiceKey cart = ServiceKey.of("shop", "cart");
    sidecars.ledger().programmed(cart, 12, Instant.ofEpochMilli(now.get() - 300));
    SyncState state = sidecars.open(Protocol.ADS, PeerIds.UNKNOWN, ADS_TYPES);
    long trigger = state.triggerMillis(cart, 12);
    assertThat(trigger).isEqualTo(now.get() - 300);
    assertThat(state.triggerMillis(cart, 11)).as("another version carries no trigger").isZero();

    state.sent(EDS, 12, trigger, now.get());
    now.addAndGet(200);
    assertThat(sidecars.latency().count()).isZero();
    state.acked(EDS);
    assertThat(sidecars.latency().count()).isEqualTo(1);
    assertThat(sidecars.latency().quantileMillis(0.5)).isBetween(250L, 500L);
    state.acked(EDS); // an ACK repeated records nothing more
    assertThat(sidecars.latency().count()).isEqualTo(1);
  }

  @Test
  void aTriggerWrittenAfterTheResponseWasBuiltIsFoundWhenTheClientAcknowledges() {
    // The sync stage writes the ledger just after it publishes: a stream woken by the publish may
    // build its response first.
    ServiceKey cart = ServiceKey.of("shop", "cart");
    SyncState state = sidecars.open(Protocol.ADS, PeerIds.UNKNOWN, ADS_TYPES);
    Carried carried = state.carrying();
    carried.add(cart, 12);
    state.sent(EDS, 12, carried, now.get());
    sidecars.ledger().programmed(cart, 12, Instant.ofEpochMilli(now.get() - 400));
    now.addAndGet(100);

    state.acked(EDS);

    assertThat(sidecars.latency().count()).isEqualTo(1);
    assertThat(sidecars.latency().quantileMillis(0.5)).isBetween(250L, 500L);
  }

  @Test
  void aNackedResponseRecordsNoPropagation() {
    SyncState state = sidecars.open(Protocol.ADS, PeerIds.UNKNOWN, ADS_TYPES);
    state.sent(EDS, 12, now.get() - 300, now.get());
    state.nacked(EDS, "no");
    state.acked(EDS);
    assertThat(sidecars.latency().count()).isZero();
  }

  @Test
  void theLedgerStaysBounded() {
    TriggerLedger ledger = new TriggerLedger(now::get, 100);
    for (int i = 0; i < 1_000; i++) {
      ledger.programmed(ServiceKey.of("ns", "s" + i), i, Instant.ofEpochMilli(now.get()));
    }
    assertThat(ledger.size()).isLessThanOrEqualTo(100);
    assertThat(ledger.triggerMillis(ServiceKey.of("ns", "s999"), 999)).isEqualTo(now.get());
  }
}
