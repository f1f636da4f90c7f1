package dev.routesync.xds;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The peers' shares of the xDS limits, without a server. */
class PeerBudgetsTest {

  private static final XdsLimits LIMITS = new XdsLimits(100, 100, 150, 1_000, 2_000, 3_000);

  private final PeerBudgets budgets = new PeerBudgets(LIMITS);

  @Test
  void aPeerStopsAtItsOwnLimitAndLeavesTheRestToOthers() {
    PeerBudgets.Share hostile = budgets.join("uid 1000");
    PeerBudgets.Share other = budgets.join("uid 2000");
    assertThat(budgets.addNames(hostile, 100)).isEqualTo(PeerBudgets.NamesLimit.NONE);
    assertThat(budgets.addNames(hostile, 1)).isEqualTo(PeerBudgets.NamesLimit.PEER);
    assertThat(budgets.addNames(other, 50)).isEqualTo(PeerBudgets.NamesLimit.NONE);
    assertThat(hostile.names()).isEqualTo(100);
  }

  @Test
  void allPeersTogetherStopAtTheOverallLimit() {
    PeerBudgets.Share first = budgets.join("uid 1000");
    PeerBudgets.Share second = budgets.join("uid 2000");
    assertThat(budgets.addNames(first, 100)).isEqualTo(PeerBudgets.NamesLimit.NONE);
    assertThat(budgets.addNames(second, 51)).isEqualTo(PeerBudgets.NamesLimit.ALL);
    assertThat(second.names()).isZero();
    assertThat(budgets.addNames(first, -100)).isEqualTo(PeerBudgets.NamesLimit.NONE);
    assertThat(budgets.addNames(second, 51)).isEqualTo(PeerBudgets.NamesLimit.NONE);
  }

  @Test
  void pendingBytesAreBoundedPerPeerAndReleasedWithAWake() {
    PeerBudgets.Share peer = budgets.join("uid 1000");
    assertThat(budgets.reserveBytes(peer, 2_000)).isTrue();
    assertThat(budgets.reserveBytes(peer, 1)).isFalse();
    boolean[] woken = {false};
    AdsStream waiting = stream(() -> woken[0] = true);
    budgets.awaitRoom(waiting, peer, 1);
    assertThat(woken[0]).isFalse();
    budgets.releaseBytes(peer, 2_000);
    assertThat(woken[0]).isTrue();
    assertThat(budgets.pendingBytes()).isZero();
  }

  @Test
  void aPeerIsForgottenWithItsLastStream() {
    PeerBudgets.Share one = budgets.join("uid 1000");
    PeerBudgets.Share two = budgets.join("uid 1000");
    assertThat(one).isSameAs(two);
    budgets.leave(one);
    assertThat(budgets.peers()).isEqualTo(1);
    budgets.leave(two);
    assertThat(budgets.peers()).isZero();
  }

  private static AdsStream stream(Runnable onNudge) {
    return new AdsStream() {
      @Override
      public void nudge() {
        onNudge.run();
      }

      @Override
      public void endCleanly() {}

      @Override
      public void closed() {}

      @Override
      public io.vertx.core.Context context() {
        return null;
      }
    };
  }
}
