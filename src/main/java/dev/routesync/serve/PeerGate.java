package dev.routesync.serve;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The socket's second line of defence, after the file's mode: each accepted connection's peer
 * credentials against {@code --allow-uids} / {@code --allow-gids}. A refused connection is closed
 * at accept, before Vert.x sees a byte of it, so it gets no answer at all. Every connection's
 * credentials are logged at debug only (one line per connection would flood any higher level).
 */
final class PeerGate {

  private static final Logger LOG = LoggerFactory.getLogger(PeerGate.class);

  private final PeerPolicy policy;
  private final PeerRefusalLog refusals;

  PeerGate(PeerPolicy policy, PeerRefusalLog refusals) {
    this.policy = policy;
    this.refusals = refusals;
  }

  /**
   * Whether a connection from {@code peer} (null: credentials unreadable) may stay; a refusal is
   * logged, rate-limited. The caller closes a refused connection and counts it.
   */
  boolean admits(Peer peer) {
    if (LOG.isDebugEnabled()) {
      LOG.debug(
          "socket connection from {}",
          peer == null ? "a peer whose credentials could not be read" : peer.describe());
    }
    String why = refusal(peer);
    if (why == null) {
      return true;
    }
    refusals.refused(peer, why);
    return false;
  }

  /** Why {@code peer} may not stay, or null when it may. */
  private String refusal(Peer peer) {
    if (!policy.restricts()) {
      return null;
    }
    if (peer == null) {
      // Fail closed: a restriction that cannot be checked for this connection refuses it.
      return "no peer credentials while --allow-uids/--allow-gids restrict";
    }
    if (!policy.allowUids().isEmpty() && !policy.allowUids().contains(peer.uid())) {
      return "uid not in --allow-uids";
    }
    if (!policy.allows(peer.uid(), peer.gid())) {
      return "gid not in --allow-gids";
    }
    return null;
  }
}
