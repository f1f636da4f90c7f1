package dev.routesync.serve;

/**
 * The socket's share per peer uid. A uid holding half of the cap or more may not take a connection
 * from the last quarter of it; uids below half may. So one uid, even alone on the socket, holds at
 * most three quarters of {@code --max-connections}, and a quarter always stays for the others.
 *
 * <p>Why not "half, unless it is the only uid": a uid alone could then fill the cap, and when a
 * second uid came, nothing would give it a slot (the first uid's connections carry Watch streams,
 * which are never cut). Why not a fixed half: on many nodes every sidecar runs as the same uid, and
 * that uid should be able to use most of the socket. Three quarters for one uid keeps both.
 */
final class UidShare implements ClientShare {

  @Override
  public Verdict judge(int total, int ofClient, int cap) {
    if (total >= cap) {
      return Verdict.REFUSE_CAP;
    }
    if (ofClient >= half(cap) && total >= cap - reserve(cap)) {
      return Verdict.REFUSE_SHARE;
    }
    return Verdict.ADMIT;
  }

  /** Connections at which a uid stops taking from the reserve: half the cap, rounded up. */
  static int half(int cap) {
    return (cap + 1) / 2;
  }

  /** The last quarter of the cap, kept for uids holding less than half. */
  static int reserve(int cap) {
    return cap / 4;
  }
}
