package dev.routesync.table;

import java.util.AbstractCollection;
import java.util.Collection;
import java.util.Iterator;
import java.util.Objects;
import kotlinx.collections.immutable.ExtensionsKt;
import kotlinx.collections.immutable.PersistentMap;
import org.pcollections.PSortedSet;
import org.pcollections.TreePSet;

/**
 * The services of one table version, persistent: a hash trie (a CHAMP map) from key to entry, and
 * beside it a sorted set of the keys for iteration in key order and namespace ranges.
 *
 * <p>Why two structures: a flush looks up and replaces k Services. In a sorted tree of n keys each
 * of those walks about log2 n levels comparing two Strings per level, and at n = 100k the nodes,
 * keys and their bytes no longer stay in a shared cache: the flush cost grew with n (issue 12). The
 * hash trie is about log32 n levels with one key compare at the end, so its cost barely moves with
 * n. The sorted key set changes only when a Service appears or disappears, which an update of an
 * existing Service (nearly every flush) never does.
 *
 * <p>The price is paid on ordered reads: {@link #inOrder} walks the sorted keys and looks each one
 * up in the trie (TableMapBenchmark.iterate measures it against the tree's own iteration).
 */
final class ServiceIndex {

  private static final ServiceIndex EMPTY =
      new ServiceIndex(ExtensionsKt.persistentHashMapOf(), TreePSet.empty());

  private final PersistentMap<ServiceKey, ServiceEndpoints> entries;
  private final PSortedSet<ServiceKey> order;

  private ServiceIndex(
      PersistentMap<ServiceKey, ServiceEndpoints> entries, PSortedSet<ServiceKey> order) {
    this.entries = entries;
    this.order = order;
  }

  static ServiceIndex empty() {
    return EMPTY;
  }

  int size() {
    return entries.size();
  }

  /** The entry for {@code key}, or null. */
  ServiceEndpoints get(ServiceKey key) {
    return entries.get(key);
  }

  /** Every entry, in key order. */
  Collection<ServiceEndpoints> inOrder() {
    return new Entries(order);
  }

  /** The entries of one namespace, in name order: a range of the sorted keys, not a scan. */
  Collection<ServiceEndpoints> inNamespace(String namespace) {
    // "\0" sorts right after the namespace itself and before any longer namespace name.
    return new Entries(
        order.subSet(
            new ServiceKey(namespace, ""), true, new ServiceKey(namespace + "\0", ""), false));
  }

  /** A batch of changes to this index; {@link #build} makes the next version. One thread only. */
  Editor edit() {
    return new Editor(this);
  }

  /**
   * Changes made in place on nodes the batch itself created (the trie's builder), so k changes copy
   * the trie's upper levels once, not k times. The index it started from never changes.
   */
  static final class Editor {
    private final ServiceIndex base;
    private final PersistentMap.Builder<ServiceKey, ServiceEndpoints> entries;
    private PSortedSet<ServiceKey> order;

    private Editor(ServiceIndex base) {
      this.base = base;
      this.entries = base.entries.builder();
      this.order = base.order;
    }

    ServiceEndpoints get(ServiceKey key) {
      return entries.get(key);
    }

    /** Adds or replaces {@code entry}'s Service. */
    void put(ServiceEndpoints entry) {
      ServiceKey key = entry.key();
      if (entries.put(key, entry) == null) {
        order = order.plus(key);
      }
    }

    /** Removes {@code key}'s Service, if present. */
    void remove(ServiceKey key) {
      if (entries.remove(key) != null) {
        order = order.minus(key);
      }
    }

    /** The index with every change so far: the base itself when nothing changed. */
    ServiceIndex build() {
      PersistentMap<ServiceKey, ServiceEndpoints> built = entries.build();
      if (built == base.entries) {
        return base;
      }
      return new ServiceIndex(built, order);
    }
  }

  /** A read-only view of the entries of some sorted keys, each looked up in the trie. */
  private final class Entries extends AbstractCollection<ServiceEndpoints> {
    private final PSortedSet<ServiceKey> keys;

    Entries(PSortedSet<ServiceKey> keys) {
      this.keys = keys;
    }

    @Override
    public Iterator<ServiceEndpoints> iterator() {
      Iterator<ServiceKey> each = keys.iterator();
      return new Iterator<>() {
        @Override
        public boolean hasNext() {
          return each.hasNext();
        }

        @Override
        public ServiceEndpoints next() {
          return Objects.requireNonNull(entries.get(each.next()));
        }
      };
    }

    @Override
    public int size() {
      return keys.size();
    }
  }
}
