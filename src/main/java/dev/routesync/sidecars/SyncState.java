package dev.routesync.sidecars;

import dev.routesync.table.ServiceKey;
import java.util.List;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * One open stream's sync state, kept by the stream itself: its client's name, how many resources it
 * follows, per type the version last sent and last acknowledged, its last NACK, and since when it
 * has been behind. Every update is O(1) and allocation-free except a name or a NACK, which are the
 * client's (and bounded, {@link ClientText}).
 *
 * <p>What "acknowledged" means: for ADS, a request carrying the latest response's nonce and no
 * error; for Watch, which has no acknowledgement, the message written out to the connection (Vert.x
 * completed its write: HTTP/2 flow control let it through, so the client is reading).
 *
 * <p>Threading: written on the stream's event loop only; read from any thread (the HTTP API, the
 * metrics) through volatile fields and atomic arrays, so a reader sees each field's latest value,
 * not one consistent instant.
 */
public final class SyncState {

  private final Sidecars owner;
  private final Protocol protocol;
  private final PeerIds peer;
  private final List<String> types;
  private final long openedMillis;
  private final AtomicLongArray sent;
  private final AtomicLongArray acked;
  // Per type, the oldest trigger time the unacknowledged response carries (0: none). Stream only.
  private final long[] sentTrigger;
  private final Carried[] sentCarried;
  private volatile String name = "";
  private volatile int subscribed;
  private volatile String lastNack = "";
  private volatile String lastNackType = "";
  private volatile long behindSinceMillis;
  // When it last caught up (or opened): it cannot have been behind since before. Stream only.
  private long caughtUpMillis;

  SyncState(Sidecars owner, Protocol protocol, PeerIds peer, List<String> types, long now) {
    this.owner = owner;
    this.protocol = protocol;
    this.peer = peer;
    this.types = List.copyOf(types);
    this.openedMillis = now;
    this.caughtUpMillis = now;
    this.sent = new AtomicLongArray(types.size());
    this.acked = new AtomicLongArray(types.size());
    this.sentTrigger = new long[types.size()];
    this.sentCarried = new Carried[types.size()];
  }

  /** The client's own name for itself ({@code node.id}, {@code client_name}), kept bounded. */
  public void named(String clientName) {
    this.name = ClientText.bounded(clientName, ClientText.MAX_NAME);
  }

  /** The stream now follows {@code count} resources (names, or Services for a Watch). */
  public void subscribed(int count) {
    this.subscribed = count;
  }

  /**
   * A response of type {@code type} (an index into the stream's types) went out at table version
   * {@code version}, carrying changes whose oldest known trigger time is {@code triggerMillis} (0:
   * none), built from a table published at {@code publishedMillis}: the stream is behind from then
   * until it acknowledges.
   */
  public void sent(int type, long version, long triggerMillis, long publishedMillis) {
    sent.set(type, version);
    sentTrigger[type] = triggerMillis;
    sentCarried[type] = null;
    behindSince(publishedMillis);
  }

  /** As above, for a response carrying {@code carried} (resolved when acknowledged). */
  public void sent(int type, long version, Carried carried, long publishedMillis) {
    sent(type, version, 0, publishedMillis);
    sentCarried[type] = carried;
  }

  /** A new, empty record of the changes one response carries. */
  public Carried carrying() {
    return new Carried(owner.ledger());
  }

  /** The client acknowledged the latest response of {@code type} (ADS). */
  public void acked(int type) {
    acked.set(type, sent.get(type));
    long trigger = sentTrigger[type];
    Carried carried = sentCarried[type];
    if (carried != null) {
      long resolved = carried.resolve();
      trigger = trigger == 0 || (resolved != 0 && resolved < trigger) ? resolved : trigger;
    }
    sentTrigger[type] = 0;
    sentCarried[type] = null;
    if (trigger != 0) {
      owner.propagated(protocol, owner.nowMillis() - trigger);
    }
  }

  /**
   * A response of {@code type} at {@code version} reached the client (Watch: written out), with the
   * oldest trigger time it carried (0: none).
   */
  public void delivered(int type, long version, long triggerMillis) {
    if (version > acked.get(type)) {
      acked.set(type, version);
    }
    if (triggerMillis != 0) {
      owner.propagated(protocol, owner.nowMillis() - triggerMillis);
    }
  }

  /**
   * The trigger time (epoch millis) of the change that gave {@code service} its {@code version}, 0
   * if none is known. One hash probe, no allocation.
   */
  public long triggerMillis(ServiceKey service, long version) {
    return owner.ledger().triggerMillis(service, version);
  }

  /** As {@link #delivered(int, long, long)}, for a message carrying {@code carried} (or null). */
  public void delivered(int type, long version, Carried carried) {
    delivered(type, version, carried == null ? 0 : carried.resolve());
  }

  /** The client rejected the latest response of {@code type}; its message is kept bounded. */
  public void nacked(int type, String message) {
    sentTrigger[type] = 0; // the change did not reach the client
    sentCarried[type] = null;
    lastNack = ClientText.bounded(message, ClientText.MAX_NACK);
    lastNackType = types.get(type);
  }

  /**
   * Something published at {@code publishedMillis} waits for this stream (unacknowledged, a full
   * write queue): behind from then, unless already behind from earlier.
   */
  public void behindSince(long publishedMillis) {
    if (behindSinceMillis == 0) {
      behindSinceMillis = Math.max(1, Math.max(publishedMillis, caughtUpMillis));
    }
  }

  /** Nothing is unsent or unacknowledged: the stream has the newest version it needs. */
  public void caughtUp() {
    if (behindSinceMillis != 0) {
      behindSinceMillis = 0;
      caughtUpMillis = owner.nowMillis();
    }
  }

  /** The stream ended: no longer listed. */
  public void closed() {
    owner.remove(this);
  }

  Protocol protocol() {
    return protocol;
  }

  /** How long behind at {@code now}; 0 when caught up. */
  long behindMillis(long now) {
    long since = behindSinceMillis;
    return since == 0 ? 0 : Math.max(0, now - since);
  }

  long connectedMillis(long now) {
    return Math.max(0, now - openedMillis);
  }

  /** What {@code GET /v1/clients} lists of this stream at {@code now}. */
  ClientView view(long now) {
    TypeSync[] each = new TypeSync[types.size()];
    for (int i = 0; i < each.length; i++) {
      each[i] = new TypeSync(types.get(i), sent.get(i), acked.get(i));
    }
    return new ClientView(
        protocol,
        peer,
        name,
        subscribed,
        List.of(each),
        lastNack,
        lastNackType,
        behindMillis(now),
        connectedMillis(now));
  }
}
