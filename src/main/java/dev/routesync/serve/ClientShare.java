package dev.routesync.serve;

/**
 * How a listener splits its connection cap between its clients, so that one client cannot take
 * every connection: on the socket a client is a uid ({@link UidShare}), on the admin port a source
 * address ({@link SourceShare}). Pure: it judges from counts, and {@link ConnectionGuard} acts.
 */
interface ClientShare {

  /** What happens to a connection just accepted. */
  enum Verdict {
    ADMIT,
    /** Close the client's own connection idle the longest to make room; refuse if none is idle. */
    EVICT_OWN,
    /** Close the listener's connection idle the longest to make room; refuse if none is idle. */
    EVICT_ANY,
    /** Refused: the client holds its share. */
    REFUSE_SHARE,
    /** Refused: the listener is at its cap. */
    REFUSE_CAP
  }

  /**
   * @param total connections open on the listener
   * @param ofClient of which the new connection's client holds this many
   * @param cap the listener's cap
   */
  Verdict judge(int total, int ofClient, int cap);
}
