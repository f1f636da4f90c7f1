package dev.routesync.table;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * One published version of the routing table.
 *
 * <p>Guarantees: <b>immutable</b> (every accessor returns the same answer forever); <b>no nulls</b>
 * in keys or values; <b>deterministic iteration</b> (services ordered by namespace, then name;
 * endpoints by IP); <b>thread-safe</b> (safe to read from any thread without locking, because
 * nothing in it ever changes).
 *
 * <p>The services live in a {@link ServiceIndex}: a persistent hash trie from key to entry plus a
 * sorted key set. {@link #apply} changing k existing services costs about k·log32 n and shares
 * every untouched node with the previous version; only adding or removing a service touches the
 * sorted set.
 */
public final class RoutingTable {

  /** Default number of recent versions whose deltas are kept for resuming watchers. */
  public static final int DEFAULT_DELTA_LOG_CAPACITY = 1024;

  private final long version;
  private final ServiceIndex services;
  private final long endpointCount;
  private final Instant builtAt;
  private final DeltaLog deltaLog;

  private RoutingTable(
      long version, ServiceIndex services, long endpointCount, Instant builtAt, DeltaLog deltaLog) {
    this.version = version;
    this.services = services;
    this.endpointCount = endpointCount;
    this.builtAt = builtAt;
    this.deltaLog = deltaLog;
  }

  /** Version 0: no services. */
  public static RoutingTable empty(Instant builtAt, int deltaLogCapacity) {
    return empty(builtAt, deltaLogCapacity, 0);
  }

  /**
   * No services, at {@code initialVersion}. An agent starts from its start time in microseconds so
   * versions keep growing across agent restarts: a sidecar resuming from a version it saw before a
   * restart can never be mistaken for one inside the new agent's delta log.
   */
  public static RoutingTable empty(Instant builtAt, int deltaLogCapacity, long initialVersion) {
    if (initialVersion < 0) {
      throw new IllegalArgumentException("initial version must be >= 0, got " + initialVersion);
    }
    return new RoutingTable(
        initialVersion,
        ServiceIndex.empty(),
        0,
        Objects.requireNonNull(builtAt),
        DeltaLog.empty(deltaLogCapacity));
  }

  /**
   * A table rebuilt from persisted entries (the state file), at {@code version}, with an empty
   * delta log: a watcher holding exactly {@code version} resumes with nothing to send, any other
   * gets a snapshot.
   *
   * @param services the entries, each at a version no newer than {@code version}; one per key
   * @throws IllegalArgumentException if a key repeats or an entry is newer than the table
   */
  public static RoutingTable restored(
      long version, Collection<ServiceEndpoints> services, Instant builtAt, int deltaLogCapacity) {
    if (version < 0) {
      throw new IllegalArgumentException("version must be >= 0, got " + version);
    }
    ServiceIndex.Editor map = ServiceIndex.empty().edit();
    long endpoints = 0;
    for (ServiceEndpoints entry : services) {
      if (entry.version() < 0 || entry.version() > version) {
        throw new IllegalArgumentException(
            entry.key() + " is at version " + entry.version() + ", outside 0.." + version);
      }
      if (map.get(entry.key()) != null) {
        throw new IllegalArgumentException(entry.key() + " appears twice");
      }
      map.put(entry);
      endpoints += entry.endpoints().size();
    }
    return new RoutingTable(
        version,
        map.build(),
        endpoints,
        Objects.requireNonNull(builtAt),
        DeltaLog.empty(deltaLogCapacity));
  }

  /**
   * This table with every entry's topology decision made for {@code here}, at the same versions (a
   * restored table: its decisions were made for the node that wrote it, or not at all).
   */
  public RoutingTable decidedFor(NodeLocality here) {
    List<ServiceEndpoints> decided = new ArrayList<>(services.size());
    boolean changed = false;
    for (ServiceEndpoints entry : services.inOrder()) {
      ServiceEndpoints again = entry.decidedFor(here);
      changed |= again != entry;
      decided.add(again);
    }
    return changed ? restored(version, decided, builtAt, deltaLog.capacity()) : this;
  }

  public long version() {
    return version;
  }

  public Instant builtAt() {
    return builtAt;
  }

  public int serviceCount() {
    return services.size();
  }

  public long endpointCount() {
    return endpointCount;
  }

  public Optional<ServiceEndpoints> get(ServiceKey key) {
    return Optional.ofNullable(services.get(key));
  }

  /** Every service, in key order. */
  public Collection<ServiceEndpoints> services() {
    return services.inOrder();
  }

  /** The services of one namespace, in name order; a range of the sorted keys, not a scan. */
  public Collection<ServiceEndpoints> servicesIn(String namespace) {
    return services.inNamespace(namespace);
  }

  public DeltaLog deltaLog() {
    return deltaLog;
  }

  /**
   * The services that changed after {@code sinceVersion}: present in this table means upserted,
   * absent means removed. Empty when {@code sinceVersion} is too old for the delta log (or from the
   * future), in which case a watcher needs a full snapshot.
   */
  public Optional<Set<ServiceKey>> changedSince(long sinceVersion) {
    return deltaLog.changedSince(sinceVersion, version);
  }

  /**
   * Returns the next version with {@code upserts} and {@code removals} applied, or {@code this}
   * when they change nothing (an idempotent replay publishes no version).
   *
   * @param upserts the full state (sorted endpoints and declared ports) of each service to create
   *     or replace; a service whose state is unchanged keeps its entry and version
   * @param removals services to delete; a key in both maps is an error
   */
  RoutingTable apply(
      Map<ServiceKey, ServiceState> upserts, Collection<ServiceKey> removals, Instant now) {
    long nextVersion = version + 1;
    ServiceIndex.Editor next = services.edit();
    long nextEndpointCount = endpointCount;
    // Keys are distinct (a map's keys; a removal counts once): lists are enough here, and the
    // delta's sets are built from them without a second check.
    List<ServiceKey> upserted = new ArrayList<>();
    List<ServiceKey> removed = new ArrayList<>();
    for (Map.Entry<ServiceKey, ServiceState> upsert : upserts.entrySet()) {
      ServiceKey key = upsert.getKey();
      if (removals.contains(key)) {
        throw new IllegalArgumentException(key + " is both upserted and removed");
      }
      ServiceEndpoints current = next.get(key);
      ServiceState state = upsert.getValue();
      if (current != null && current.holds(state)) {
        continue;
      }
      ServiceEndpoints replacement =
          new ServiceEndpoints(
              key,
              nextVersion,
              state.endpoints(),
              state.servicePorts(),
              state.traffic(),
              state.topology());
      next.put(replacement);
      nextEndpointCount +=
          replacement.endpoints().size() - (current == null ? 0 : current.endpoints().size());
      upserted.add(key);
    }
    for (ServiceKey key : removals) {
      ServiceEndpoints current = next.get(key);
      if (current == null) {
        continue;
      }
      next.remove(key);
      nextEndpointCount -= current.endpoints().size();
      removed.add(key);
    }
    if (upserted.isEmpty() && removed.isEmpty()) {
      return this;
    }
    return new RoutingTable(
        nextVersion,
        next.build(),
        nextEndpointCount,
        now,
        deltaLog.append(new TableDelta(nextVersion, distinct(upserted), distinct(removed))));
  }

  /**
   * An immutable set of keys known to be distinct, built in one pass: {@code Set.copyOf} of a list
   * first fills a HashSet to drop duplicates, hashing and comparing every key twice (a fifth of a
   * flush's samples at k = 100 under async-profiler).
   */
  private static Set<ServiceKey> distinct(List<ServiceKey> keys) {
    return Set.of(keys.toArray(new ServiceKey[0]));
  }

  @Override
  public String toString() {
    return "RoutingTable{version="
        + version
        + ", services="
        + services.size()
        + ", endpoints="
        + endpointCount
        + "}";
  }
}
