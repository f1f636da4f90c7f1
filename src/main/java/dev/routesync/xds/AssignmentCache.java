package dev.routesync.xds;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import dev.routesync.table.RoutingTable;
import dev.routesync.table.ServiceEndpoints;
import dev.routesync.table.ServiceKey;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Encoded {@code ClusterLoadAssignment}s, one per (Service, cluster name) at the Service's version,
 * shared by every stream: a change to one Service is encoded once, however many streams follow it,
 * and each stream's response copies the bytes rather than encoding them again.
 *
 * <p>Bounded by the table, not by clients: only names whose port selects something on a Service
 * that exists are kept (at most a few spellings per declared port), and a Service's entries go when
 * it leaves the table. Names that select nothing are cheap (an empty assignment) and not kept.
 *
 * <p>Threading: read on every stream's event loop, evicted on the table writer's thread; two
 * streams that miss at once both encode, and the last write wins with equal bytes.
 */
final class AssignmentCache implements ClusterAssignments {

  private record Encoded(long version, Any assignment) {}

  private static final String TYPE_URL = XdsType.ENDPOINT.typeUrl();

  // An assignment that drops every call differs from another only in its cluster name, field 1,
  // which protobuf writes first: its bytes are the name's field and this tail, so a name that
  // points at nothing costs its bytes, not a message built for it.
  private static final ByteString NO_SUCH_SERVICE_TAIL =
      XdsResources.dropsEverythingTail(XdsResources.NO_SUCH_SERVICE);

  private final Map<ServiceKey, Map<String, Encoded>> byService = new ConcurrentHashMap<>();
  private volatile long seenVersion = -1;

  @Override
  public Any assignment(String name, Optional<XdsTarget> target, RoutingTable current) {
    if (target.isEmpty()) {
      return noSuchService(name);
    }
    ServiceKey key = target.get().service();
    Optional<ServiceEndpoints> service = current.get(key);
    if (service.isEmpty() || PortSelection.of(service.get(), target.get().port()).isEmpty()) {
      return noSuchService(name);
    }
    long version = service.get().version();
    Map<String, Encoded> names = byService.computeIfAbsent(key, k -> new ConcurrentHashMap<>());
    Encoded cached = names.get(name);
    if (cached != null && cached.version() == version) {
      return cached.assignment();
    }
    Any encoded = Any.pack(XdsResources.assignment(name, target, service));
    names.put(name, new Encoded(version, encoded));
    return encoded;
  }

  /** The assignment of {@code name} that drops every call as {@code no_such_service}. */
  static Any noSuchService(String name) {
    ByteString utf8 = ByteString.copyFromUtf8(name);
    byte[] field = new byte[CodedOutputStream.computeTagSize(1) + 5];
    CodedOutputStream out = CodedOutputStream.newInstance(field);
    try {
      out.writeTag(1, com.google.protobuf.WireFormat.WIRETYPE_LENGTH_DELIMITED);
      out.writeUInt32NoTag(utf8.size());
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
    ByteString head = ByteString.copyFrom(field, 0, out.getTotalBytesWritten());
    return Any.newBuilder()
        .setTypeUrl(TYPE_URL)
        .setValue(head.concat(utf8).concat(NO_SUCH_SERVICE_TAIL))
        .build();
  }

  /** Drops the entries of Services {@code table} no longer has. The table writer's thread. */
  @Override
  public void published(RoutingTable table) {
    long since = seenVersion;
    seenVersion = table.version();
    Optional<Set<ServiceKey>> changed = since < 0 ? Optional.empty() : table.changedSince(since);
    if (changed.isEmpty()) {
      byService.keySet().removeIf(key -> table.get(key).isEmpty());
      return;
    }
    for (ServiceKey key : changed.get()) {
      if (table.get(key).isEmpty()) {
        byService.remove(key);
      }
    }
  }

  /** Cached assignments, for tests. */
  int size() {
    return byService.values().stream().mapToInt(Map::size).sum();
  }
}
