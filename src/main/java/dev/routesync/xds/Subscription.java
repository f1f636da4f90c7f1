package dev.routesync.xds;

import dev.routesync.table.ServiceKey;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What one stream follows of one resource type, and what it last sent: the subscribed names (or the
 * wildcard), the names not answered yet, the Service version sent for each name, and the nonce of
 * the one response that may be unacknowledged. Owned by the stream's event loop: no locks.
 */
final class Subscription {

  /** The version sent for a name that points at no Service. */
  static final long ABSENT = -1;

  /** The version sent for a name that names none (it can never change). */
  static final long INVALID = -2;

  final XdsType type;
  private final Set<String> names = new LinkedHashSet<>();
  private final Map<String, Optional<XdsTarget>> targets = new HashMap<>();
  private final Map<ServiceKey, Set<String>> byService = new HashMap<>();
  private final Map<String, Long> sent = new HashMap<>();
  private final Set<String> unsent = new LinkedHashSet<>();
  private boolean wildcard;
  private boolean explicitBefore;
  private long sentWildcard;
  private String lastNonce = "";
  private boolean pending;
  private long checkedAt = -1;

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
    if (!requested.isEmpty() && !(star && requested.size() == 1)) {
      explicitBefore = true;
    }
    if (!nowWildcard) {
      sentWildcard = 0;
    }
    wildcard = nowWildcard;
    Set<String> next = new LinkedHashSet<>(requested);
    next.remove("*");
    for (String gone : Set.copyOf(names)) {
      if (!next.contains(gone)) {
        forget(gone);
      }
    }
    for (String name : next) {
      if (names.add(name)) {
        Optional<XdsTarget> target = XdsNames.parse(name);
        targets.put(name, target);
        target.ifPresent(
            t -> byService.computeIfAbsent(t.service(), k -> new LinkedHashSet<>()).add(name));
        unsent.add(name);
      }
    }
  }

  private void forget(String name) {
    names.remove(name);
    sent.remove(name);
    unsent.remove(name);
    Optional<XdsTarget> target = targets.remove(name);
    if (target != null && target.isPresent()) {
      Set<String> ofService = byService.get(target.get().service());
      if (ofService != null) {
        ofService.remove(name);
        if (ofService.isEmpty()) {
          byService.remove(target.get().service());
        }
      }
    }
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

  boolean pending() {
    return pending;
  }

  boolean wildcard() {
    return wildcard;
  }

  Set<String> names() {
    return names;
  }

  int size() {
    return names.size();
  }

  Set<String> unsent() {
    return unsent;
  }

  Optional<XdsTarget> target(String name) {
    Optional<XdsTarget> target = targets.get(name);
    return target == null ? XdsNames.parse(name) : target;
  }

  /** The names of {@code service} this subscription follows (none: an empty set). */
  Set<String> namesOf(ServiceKey service) {
    return byService.getOrDefault(service, Set.of());
  }

  /** The version last sent for {@code name}, or null if none was. */
  Long sentVersion(String name) {
    return sent.get(name);
  }

  void markSent(String name, long version) {
    sent.put(name, version);
    unsent.remove(name);
  }

  long sentWildcard() {
    return sentWildcard;
  }

  void markWildcardSent(long content) {
    sentWildcard = content;
  }

  /** The table version up to which every name was compared with what was sent (-1: none yet). */
  long checkedAt() {
    return checkedAt;
  }

  void checkedAt(long version) {
    checkedAt = version;
  }
}
