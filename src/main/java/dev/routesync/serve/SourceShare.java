package dev.routesync.serve;

/**
 * The admin port's share per source address: each address holds at most {@code perSource}
 * connections, and a new connection never waits for an old one to leave. Over its share, an
 * address's new connection takes the place of its own connection idle the longest; at the
 * listener's cap, of the listener's connection idle the longest. Only connections with a request
 * being answered are never closed for a new one, and those last milliseconds here (probes and
 * scrapes), so a probe always finds room.
 *
 * <p>Why eviction and a per-address share rather than a reserve for probes or a short keep-alive:
 * kubelet opens a new connection for each probe from the node's address, which host-network
 * processes share, and the agent cannot tell a probe from any other connection at accept. Holding a
 * connection open then costs the holder its oldest connection, whoever it is, and one address
 * cannot churn more than its own share of the cap.
 */
final class SourceShare implements ClientShare {

  private final int perSource;

  SourceShare(int perSource) {
    if (perSource < 1) {
      throw new IllegalArgumentException("per-source share must be at least 1, got " + perSource);
    }
    this.perSource = perSource;
  }

  @Override
  public Verdict judge(int total, int ofClient, int cap) {
    if (ofClient >= perSource) {
      return Verdict.EVICT_OWN;
    }
    return total >= cap ? Verdict.EVICT_ANY : Verdict.ADMIT;
  }
}
