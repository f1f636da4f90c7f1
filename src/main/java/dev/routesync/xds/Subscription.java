package dev.routesync.xds;

import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What one stream follows of one resource type, and what it last sent: the subscribed names (or the
 * wildcard), the names not answered yet, the Service version sent for each name, and the nonce of
 * the one response that may be unacknowledged. Owned by the stream's event loop: no locks.
 */
final class Subscription implements AdsSubscription {

  /** The version sent for a name that points at no Service. */
  static final long ABSENT = -1;

  /** The version sent for a name that names none (it can never change). */
  static final long INVALID = -2;

  final XdsType type;
  private final SubscribedNames names = new SubscribedNames();
  private final Map<String, Long> sent = new HashMap<>();
  private boolean wildcard;
  private boolean explicitBefore;
  private long sentWildcard;
  private String lastNonce = "";
  private boolean pending;

  Subscription(XdsType type) {
    this.type = type;
  }

  /**
   * Takes a request's names as the new subscription (state of the world: every request carries all
   * of them). {@code "*"} or, for LDS and CDS, an empty list before any explicit name, is the
   * wildcard; an empty list after explicit names unsubscribes from all.
   */
  void subscribe(List<String> requested) {
    boolean star = requested.contains("*");
    boolean nowWildcard = star || (requested.isEmpty() && type.fullState() && !explicitBefore);
    if (!star && nowWildcard == wildcard && unchanged(requested)) {
      return; // an ACK repeats the names: nothing to copy (the common case, once per push)
    }
    if (!requested.isEmpty() && !(star && requested.size() == 1)) {
      explicitBefore = true;
    }
    if (!nowWildcard) {
      sentWildcard = 0;
    }
    wildcard = nowWildcard;
    Set<String> next = new LinkedHashSet<>(requested);
    next.remove("*");
    for (String gone : Set.copyOf(names.names())) {
      if (!next.contains(gone)) {
        names.forget(gone);
        sent.remove(gone);
      }
    }
    for (String name : next) {
      if (names.add(name)) {
        names.unsent().add(name);
      }
    }
  }

  private boolean unchanged(List<String> requested) {
    if (requested.size() != names.size()) {
      return false;
    }
    for (String name : requested) {
      if (!names.contains(name)) {
        return false;
      }
    }
    return true;
  }

  /**
   * Reads a request's nonce: true when the request answers the latest response (or is the first of
   * its type), false when it answers an older one and must be ignored. An answer clears the pending
   * response.
   */
  boolean acknowledges(String nonce) {
    if (nonce.isEmpty()) {
      return true;
    }
    if (!nonce.equals(lastNonce)) {
      return false;
    }
    pending = false;
    return true;
  }

  void sentResponse(String nonce) {
    lastNonce = nonce;
    pending = true;
  }

  @Override
  public boolean pending() {
    return pending;
  }

  @Override
  public int size() {
    return names.size();
  }

  boolean wildcard() {
    return wildcard;
  }

  /** The subscribed names, their targets, and which of them are not answered yet. */
  SubscribedNames names() {
    return names;
  }

  /** The version last sent for {@code name}, or null if none was. */
  Long sentVersion(String name) {
    return sent.get(name);
  }

  void markSent(String name, long version) {
    sent.put(name, version);
    names.unsent().remove(name);
  }

  long sentWildcard() {
    return sentWildcard;
  }

  void markWildcardSent(long content) {
    sentWildcard = content;
  }
}
