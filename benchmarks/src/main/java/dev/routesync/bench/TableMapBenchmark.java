package dev.routesync.bench;

import dev.routesync.table.ServiceEndpoints;
import dev.routesync.table.ServiceKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;
import org.pcollections.HashPMap;
import org.pcollections.HashTreePMap;
import org.pcollections.PSortedMap;
import org.pcollections.PSortedSet;
import org.pcollections.TreePMap;
import org.pcollections.TreePSet;

/**
 * The routing table's map, alone and side by side: which persistent map keeps a flush's cost flat
 * in the table's size (issue 12, target 2). Each candidate holds {@code n} real {@link
 * ServiceEndpoints} (5 endpoints each, as {@link FlushCostBenchmark}), so the heap and the caches
 * look like the agent's.
 *
 * <ul>
 *   <li>{@code update}: what {@code RoutingTable.apply} does per changed Service, for k = 100
 *       Services: a lookup (to compare with the new state) and a replacement, one after the other
 *       on persistent versions. {@code spread} picks keys across the whole key space (as a real
 *       batch); {@code clustered} picks k neighbouring keys. With the same depth and the same
 *       number of comparisons, the difference between the two at n = 100k is what cache misses
 *       cost.
 *   <li>{@code iterate}: every entry in key order (a full snapshot, and what {@code
 *       WildcardClusters} does on every version). A hash map has no order, so its candidates walk a
 *       sorted key set and look each key up: the price of ordering kept beside a hash trie.
 * </ul>
 *
 * <p>Candidates: {@code tree} (pcollections' {@code TreePMap}, the table before issue 12); {@code
 * hashtree} (pcollections' {@code HashTreePMap}, a binary tree over int hashes: no key compare on
 * the way down); {@code champ} (kotlinx-collections-immutable's CHAMP map); {@code vavr} (vavr's
 * HAMT {@code HashMap}); {@code paguro} (Paguro's Clojure-derived HAMT); {@code twolevel} (a hash
 * map of namespace to a {@code TreePMap} of names).
 *
 * <p>About 3 minutes:
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar TableMapBenchmark -prof gc
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
public class TableMapBenchmark {

  private static final int K = 100;

  @Param({"tree", "hashtree", "champ", "vavr", "paguro", "twolevel"})
  String map;

  @Param({"1000", "100000"})
  int n;

  @Param({"spread"})
  String keys;

  private Candidate candidate;
  private Object table;
  private PSortedSet<ServiceKey> order;
  private ServiceKey[] batch;
  private ServiceEndpoints[][] values;
  private int generation;

  @Setup(Level.Trial)
  public void setUp() {
    candidate = Candidate.named(map);
    table = candidate.empty();
    List<ServiceKey> all = new ArrayList<>(n);
    for (Map.Entry<ServiceKey, List<dev.routesync.table.Endpoint>> entry :
        Tables.services(n, 5).entrySet()) {
      table =
          candidate.put(
              table, entry.getKey(), new ServiceEndpoints(entry.getKey(), 1, entry.getValue()));
      all.add(entry.getKey());
    }
    order = TreePSet.from(all);
    List<ServiceKey> sorted = new ArrayList<>(order);
    batch = new ServiceKey[K];
    values = new ServiceEndpoints[2][K];
    for (int i = 0; i < K; i++) {
      // Spread: every (n/k)th key in key order; clustered: k neighbours in key order.
      ServiceKey stored = sorted.get(keys.equals("clustered") ? i : (int) ((long) i * n / K));
      // A fresh key equal to the stored one, as a watch event's translation builds it.
      batch[i] = new ServiceKey(new String(stored.namespace()), new String(stored.name()));
      int service = Integer.parseInt(stored.name().substring("svc-".length()));
      for (int g = 0; g < 2; g++) {
        values[g][i] = new ServiceEndpoints(batch[i], 2 + g, Tables.endpoints(service, 5, g + 1));
      }
    }
  }

  @Benchmark
  public Object update() {
    ServiceEndpoints[] next = values[generation];
    generation ^= 1;
    Object t = table;
    for (int i = 0; i < K; i++) {
      Object current = candidate.get(t, batch[i]);
      if (current != next[i]) {
        t = candidate.put(t, batch[i], next[i]);
      }
    }
    table = t;
    return t;
  }

  @Benchmark
  public void iterate(Blackhole blackhole) {
    candidate.inOrder(table, order, blackhole);
  }

  /** One map implementation behind a common face; maps are passed as Object to keep it small. */
  abstract static class Candidate {

    abstract Object empty();

    abstract Object put(Object map, ServiceKey key, ServiceEndpoints value);

    abstract Object get(Object map, ServiceKey key);

    /** Hash maps: the sorted key set, each key looked up. */
    void inOrder(Object map, PSortedSet<ServiceKey> order, Blackhole blackhole) {
      for (ServiceKey key : order) {
        blackhole.consume(get(map, key));
      }
    }

    static Candidate named(String name) {
      return switch (name) {
        case "tree" -> new Tree();
        case "hashtree" -> new HashTree();
        case "champ" -> new Champ();
        case "vavr" -> new Vavr();
        case "paguro" -> new Paguro();
        case "twolevel" -> new TwoLevel();
        default -> throw new IllegalArgumentException(name);
      };
    }
  }

  @SuppressWarnings("unchecked")
  static final class Tree extends Candidate {
    Object empty() {
      return TreePMap.<ServiceKey, ServiceEndpoints>empty();
    }

    Object put(Object map, ServiceKey key, ServiceEndpoints value) {
      return ((PSortedMap<ServiceKey, ServiceEndpoints>) map).plus(key, value);
    }

    Object get(Object map, ServiceKey key) {
      return ((PSortedMap<ServiceKey, ServiceEndpoints>) map).get(key);
    }

    @Override
    void inOrder(Object map, PSortedSet<ServiceKey> order, Blackhole blackhole) {
      for (ServiceEndpoints value : ((PSortedMap<ServiceKey, ServiceEndpoints>) map).values()) {
        blackhole.consume(value);
      }
    }
  }

  @SuppressWarnings("unchecked")
  static final class HashTree extends Candidate {
    Object empty() {
      return HashTreePMap.<ServiceKey, ServiceEndpoints>empty();
    }

    Object put(Object map, ServiceKey key, ServiceEndpoints value) {
      return ((HashPMap<ServiceKey, ServiceEndpoints>) map).plus(key, value);
    }

    Object get(Object map, ServiceKey key) {
      return ((HashPMap<ServiceKey, ServiceEndpoints>) map).get(key);
    }
  }

  @SuppressWarnings("unchecked")
  static final class Champ extends Candidate {
    Object empty() {
      return kotlinx.collections.immutable.ExtensionsKt
          .<ServiceKey, ServiceEndpoints>persistentHashMapOf();
    }

    Object put(Object map, ServiceKey key, ServiceEndpoints value) {
      return ((kotlinx.collections.immutable.PersistentMap<ServiceKey, ServiceEndpoints>) map)
          .put(key, value);
    }

    Object get(Object map, ServiceKey key) {
      return ((kotlinx.collections.immutable.PersistentMap<ServiceKey, ServiceEndpoints>) map)
          .get(key);
    }
  }

  @SuppressWarnings("unchecked")
  static final class Vavr extends Candidate {
    Object empty() {
      return io.vavr.collection.HashMap.<ServiceKey, ServiceEndpoints>empty();
    }

    Object put(Object map, ServiceKey key, ServiceEndpoints value) {
      return ((io.vavr.collection.HashMap<ServiceKey, ServiceEndpoints>) map).put(key, value);
    }

    Object get(Object map, ServiceKey key) {
      return ((io.vavr.collection.HashMap<ServiceKey, ServiceEndpoints>) map).getOrElse(key, null);
    }
  }

  @SuppressWarnings("unchecked")
  static final class Paguro extends Candidate {
    Object empty() {
      return org.organicdesign.fp.collections.PersistentHashMap
          .<ServiceKey, ServiceEndpoints>empty();
    }

    Object put(Object map, ServiceKey key, ServiceEndpoints value) {
      return ((org.organicdesign.fp.collections.PersistentHashMap<ServiceKey, ServiceEndpoints>)
              map)
          .assoc(key, value);
    }

    Object get(Object map, ServiceKey key) {
      return ((org.organicdesign.fp.collections.PersistentHashMap<ServiceKey, ServiceEndpoints>)
              map)
          .get(key);
    }
  }

  /** Namespace → (name → entry): the upper level hashed, each namespace a sorted tree of names. */
  @SuppressWarnings("unchecked")
  static final class TwoLevel extends Candidate {
    Object empty() {
      return HashTreePMap.<String, PSortedMap<String, ServiceEndpoints>>empty();
    }

    Object put(Object map, ServiceKey key, ServiceEndpoints value) {
      HashPMap<String, PSortedMap<String, ServiceEndpoints>> namespaces =
          (HashPMap<String, PSortedMap<String, ServiceEndpoints>>) map;
      PSortedMap<String, ServiceEndpoints> names = namespaces.get(key.namespace());
      if (names == null) {
        names = TreePMap.empty();
      }
      return namespaces.plus(key.namespace(), names.plus(key.name(), value));
    }

    Object get(Object map, ServiceKey key) {
      PSortedMap<String, ServiceEndpoints> names =
          ((HashPMap<String, PSortedMap<String, ServiceEndpoints>>) map).get(key.namespace());
      return names == null ? null : names.get(key.name());
    }

    @Override
    void inOrder(Object map, PSortedSet<ServiceKey> order, Blackhole blackhole) {
      HashPMap<String, PSortedMap<String, ServiceEndpoints>> namespaces =
          (HashPMap<String, PSortedMap<String, ServiceEndpoints>>) map;
      // The namespaces in order: a real table would keep this set; it is small.
      for (String namespace : TreePSet.from(namespaces.keySet())) {
        for (ServiceEndpoints value : namespaces.get(namespace).values()) {
          blackhole.consume(value);
        }
      }
    }
  }
}
