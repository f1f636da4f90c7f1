package dev.routesync.serve;

import dev.routesync.table.RoutingTable;
import dev.routesync.table.ServiceEndpoints;
import dev.routesync.table.ServiceKey;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Each recently changed Service's Watch encoding (its {@code routesync.v1.ServiceEndpoints} message
 * as bytes), made once per Service version and shared by every Watch stream that sends it: with N
 * subscribers a change costs one encode and N copies of its bytes ({@link WatchMessage}), not N
 * encodes.
 *
 * <p>Bounded by the table and by recency, never by clients: an entry is the encoding of a Service
 * at its version in the table, it is kept only while that version is among the last {@link
 * #RETAINED_VERSIONS} table versions (what up-to-date subscribers ask for; a subscriber further
 * behind, or a full snapshot of Services that have not changed lately, encodes without keeping), it
 * goes as soon as a newer version of its Service or the Service's removal is published, and the
 * whole is capped at {@link #MAX_BYTES}. So the cache holds at most the Services of the last few
 * versions, not a second copy of the table.
 *
 * <p>Threading: read and filled on every stream's event loop, trimmed on the table writer's thread
 * ({@link #published}). Two streams that miss at once both encode (equal bytes; the last put wins).
 * An entry put by a stream for a version the writer has just superseded stays until its version
 * leaves the retained window: bounded all the same.
 */
final class EncodedServices implements ServiceEncodings {

  /** How many of the latest table versions' Services are kept encoded. */
  static final int RETAINED_VERSIONS = 64;

  /** Upper bound on the bytes kept, whatever the churn. */
  static final long MAX_BYTES = 16L * 1024 * 1024;

  private record Encoded(long version, byte[] bytes) {}

  /** What was kept, in the order it was kept: the trim walks it from the oldest. */
  private record Kept(ServiceKey key, long version, int size) {}

  private final Map<ServiceKey, Encoded> byService = new ConcurrentHashMap<>();
  private final Queue<Kept> kept = new ConcurrentLinkedQueue<>();
  private final AtomicLong keptBytes = new AtomicLong();
  private final LongAdder encodes = new LongAdder();
  private final long maxBytes;
  // Versions below this are not kept; raised by published().
  private volatile long floor;
  private volatile long seenVersion = -1;

  EncodedServices() {
    this(MAX_BYTES);
  }

  /** With another byte cap, for tests. */
  EncodedServices(long maxBytes) {
    this.maxBytes = maxBytes;
  }

  @Override
  public byte[] encoded(ServiceEndpoints service) {
    Encoded cached = byService.get(service.key());
    if (cached != null && cached.version() == service.version()) {
      return cached.bytes();
    }
    byte[] bytes = encode(service);
    if (service.version() >= floor && bytes.length <= maxBytes) {
      byService.put(service.key(), new Encoded(service.version(), bytes));
      kept.add(new Kept(service.key(), service.version(), bytes.length));
      if (keptBytes.addAndGet(bytes.length) > maxBytes) {
        trim(); // over the cap: the oldest go, so the newest versions (the most asked for) stay
      }
    }
    return bytes;
  }

  private byte[] encode(ServiceEndpoints service) {
    encodes.increment();
    return ProtoMapping.service(service).toByteArray();
  }

  /**
   * A new table version: drops what it superseded (changed or removed Services) and what fell out
   * of the retained window. The table writer's thread.
   */
  @Override
  public void published(RoutingTable table) {
    long since = seenVersion;
    seenVersion = table.version();
    floor = table.version() - RETAINED_VERSIONS + 1;
    Optional<Set<ServiceKey>> changed = since < 0 ? Optional.empty() : table.changedSince(since);
    if (changed.isPresent()) {
      for (ServiceKey key : changed.get()) {
        byService.computeIfPresent(key, (k, entry) -> current(table, k, entry) ? entry : null);
      }
    } else {
      byService.entrySet().removeIf(entry -> !current(table, entry.getKey(), entry.getValue()));
    }
    trim();
  }

  /**
   * Forgets the oldest kept encodings while they are older than the retained window or the whole is
   * over the byte cap. Any thread; serialized, so the head looked at is the head taken (it runs
   * once per publish, and on an event loop only past the cap).
   */
  private synchronized void trim() {
    Kept oldest;
    while ((oldest = kept.peek()) != null
        && (oldest.version() < floor || keptBytes.get() > maxBytes)) {
      kept.poll();
      keptBytes.addAndGet(-oldest.size());
      Kept gone = oldest;
      byService.computeIfPresent(
          gone.key(), (k, entry) -> entry.version() == gone.version() ? null : entry);
    }
  }

  private static boolean current(RoutingTable table, ServiceKey key, Encoded entry) {
    Optional<ServiceEndpoints> now = table.get(key);
    return now.isPresent() && now.get().version() == entry.version();
  }

  /** Services encoded so far: one per Service version while it is kept. */
  @Override
  public long encodes() {
    return encodes.sum();
  }

  /** Encodings kept now. */
  int size() {
    return byService.size();
  }
}
