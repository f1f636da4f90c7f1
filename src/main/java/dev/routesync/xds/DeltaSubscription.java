package dev.routesync.xds;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What one delta stream follows of one resource type: the names subscribed explicitly, whether it
 * follows the wildcard, and, per name, the version the client has. That last map is the heart of
 * delta xDS: a resource is sent when its current version differs from the one the client has, a
 * name the client has that no longer exists (only possible under the wildcard) is sent as removed,
 * and nothing else is sent at all. The client's versions come from what this stream sent, or, for a
 * stream resuming after a reconnect, from its first request's {@code initial_resource_versions}.
 *
 * <p>Like {@link Subscription}: one response may be unacknowledged; what a NACK rejected stays
 * recorded as the client's version, so the same content is never sent again. Owned by the stream's
 * event loop: no locks.
 */
final class DeltaSubscription implements AdsSubscription {

  /** The wildcard's name in {@code resource_names_subscribe} and {@code _unsubscribe}. */
  static final String WILDCARD = "*";

  /** {@link #comparedContent} before the wildcard list was compared. */
  static final long NEVER = -1;

  final XdsType type;
  private final SubscribedNames names = new SubscribedNames();
  private final Map<String, String> known = new HashMap<>();
  private final Set<String> claimed = new HashSet<>();
  private boolean started;
  private boolean wildcard;
  private boolean answered;
  private long comparedContent = NEVER;
  private String lastNonce = "";
  private boolean pending;

  DeltaSubscription(XdsType type) {
    this.type = type;
  }

  /** Whether no request of this type came yet. */
  boolean first() {
    return !started;
  }

  /**
   * The type's first request. An empty {@code subscribe} is the legacy wildcard for LDS and CDS
   * (what Envoy sends for "all clusters"), as is an explicit {@code "*"}. The client's {@code
   * initial} versions are taken as what it has; for a name it did not subscribe again (and, not
   * under the wildcard, can get no news of) they are dropped.
   */
  void start(List<String> subscribe, Map<String, String> initial) {
    started = true;
    wildcard = subscribe.contains(WILDCARD) || (subscribe.isEmpty() && type.fullState());
    known.putAll(initial);
    claimed.addAll(initial.keySet());
    for (String name : subscribe) {
      if (!name.equals(WILDCARD)) {
        add(name);
      }
    }
    if (!wildcard) {
      known.keySet().retainAll(names.names());
      claimed.retainAll(names.names());
    }
  }

  /**
   * A later request's new names. A name the client already has is sent again all the same: the
   * protocol lets a client forget a resource and ask anew. {@code "*"} joins the wildcard; a legacy
   * wildcard stays one when names are added (as in Envoy and go-control-plane): only an
   * unsubscribed {@code "*"} ends it.
   */
  void subscribe(List<String> subscribe) {
    for (String name : subscribe) {
      if (name.equals(WILDCARD)) {
        if (!wildcard) {
          wildcard = true;
          comparedContent = NEVER;
        }
        continue;
      }
      add(name);
      known.remove(name);
      claimed.remove(name);
    }
  }

  /**
   * Names the client lost interest in; unknown ones are ignored, as the protocol asks. A name the
   * wildcard still covers stays with the client. {@code "*"} leaves the wildcard, and the names
   * only it covered are forgotten (the client unsubscribed: no removal is owed).
   */
  void unsubscribe(List<String> unsubscribe) {
    for (String name : unsubscribe) {
      if (name.equals(WILDCARD)) {
        wildcard = false;
        comparedContent = NEVER;
        known.keySet().retainAll(names.names());
        claimed.retainAll(names.names());
        continue;
      }
      names.forget(name);
      if (!(wildcard && type == XdsType.CLUSTER)) {
        known.remove(name);
        claimed.remove(name);
      }
    }
  }

  private void add(String name) {
    names.add(name);
    names.unsent().add(name);
  }

  /**
   * Whether a request's nonce answers the latest response, which is then no longer pending. An
   * empty nonce (a spontaneous subscription change) or an older one answers nothing; its names
   * still count, since delta requests carry changes, not the whole subscription.
   */
  boolean answers(String nonce) {
    if (nonce.isEmpty() || !nonce.equals(lastNonce)) {
      return false;
    }
    pending = false;
    return true;
  }

  void sentResponse(String nonce) {
    lastNonce = nonce;
    pending = true;
    answered = true;
  }

  @Override
  public boolean pending() {
    return pending;
  }

  /** Names subscribed, and those the client claims to have without this stream having sent them. */
  @Override
  public int size() {
    return names.size() + claimed.size();
  }

  /** Whether any response of this type went out (a wildcard's first one goes out even empty). */
  boolean answered() {
    return answered;
  }

  boolean wildcard() {
    return wildcard;
  }

  /**
   * The explicitly subscribed names; their {@link SubscribedNames#unsent} are compared with what
   * the client has whatever changed in the table, and the flush that compares them clears it.
   */
  SubscribedNames names() {
    return names;
  }

  /** Whether the client has {@code version} of {@code name}. */
  boolean has(String name, String version) {
    return version.equals(known.get(name));
  }

  /** The client has (or was sent, and may have rejected) {@code version} of {@code name}. */
  void sent(String name, String version) {
    known.put(name, version);
    claimed.remove(name);
  }

  /**
   * Whether the client has {@code name} from this stream, so at the content this agent builds for
   * it: true for a listener, route or cluster sent here, whose content depends on the name alone. A
   * version the client only claimed (from an earlier stream, maybe an older agent) must be
   * compared.
   */
  boolean sentHere(String name) {
    return known.containsKey(name) && !claimed.contains(name);
  }

  /** How many names the client has. */
  int knownCount() {
    return known.size();
  }

  /**
   * Under the wildcard, a name the client has that is neither {@code listed} nor explicitly
   * subscribed no longer exists: forgets it and returns it, to be sent as removed, once.
   */
  List<String> removeUnlisted(Set<String> listed) {
    List<String> removed = new ArrayList<>();
    Iterator<String> names = known.keySet().iterator();
    while (names.hasNext()) {
      String name = names.next();
      if (!listed.contains(name) && !this.names.contains(name)) {
        removed.add(name);
        names.remove();
        claimed.remove(name);
      }
    }
    return removed;
  }

  /** The {@link WildcardClusters.Snapshot#content} last compared with what the client has. */
  long comparedContent() {
    return comparedContent;
  }

  void comparedContent(long content) {
    comparedContent = content;
  }
}
