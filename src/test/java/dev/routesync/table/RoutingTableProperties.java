package dev.routesync.table;

import static dev.routesync.testing.TableStates.states;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The routing table against a plain {@link TreeMap} model: random batches of upserts and removals
 * over a small key space, so the same keys are hit, replaced with equal values and removed again.
 *
 * <p>Seeded generator of our own ({@code -Droutesync.seed=N} to replay): 200 random histories.
 */
class RoutingTableProperties {

  private static final Instant T0 = Instant.parse("2024-01-01T00:00:00Z");

  // Neighbouring namespaces on purpose: "ab" sorts between "a" and "b".
  private static final List<ServiceKey> KEYS =
      List.of(
          new ServiceKey("a", "x"),
          new ServiceKey("a", "y"),
          new ServiceKey("ab", "x"),
          new ServiceKey("b", "x"),
          new ServiceKey("b", "y"));
  private static final List<String> NAMESPACES = List.of("a", "ab", "b", "c");

  private static final List<List<Endpoint>> VARIANTS =
      List.of(
          List.of(),
          RoutingTableTest.endpoints("10.0.0.1"),
          RoutingTableTest.endpoints("10.0.0.1", "10.0.0.2"),
          RoutingTableTest.endpoints("10.0.0.3"));

  /** Upsert {@code KEYS[key]} with {@code VARIANTS[variant]}, or remove it when variant is -1. */
  record Action(int key, int variant) {}

  /** The model at one version and the table published for it. */
  private record Snapshot(RoutingTable table, TreeMap<ServiceKey, List<Endpoint>> model) {}

  private static final long SEED = Long.getLong("routesync.seed", 20261129L);
  private static final int TRIES = 200;

  @Test
  void tableFollowsATreeMapModel() {
    Random random = new Random(SEED);
    for (int trial = 0; trial < TRIES; trial++) {
      List<List<Action>> batches = new ArrayList<>();
      int batchCount = random.nextInt(31);
      for (int b = 0; b < batchCount; b++) {
        List<Action> batch = new ArrayList<>();
        int actions = random.nextInt(5);
        for (int a = 0; a < actions; a++) {
          batch.add(
              new Action(random.nextInt(KEYS.size()), random.nextInt(VARIANTS.size() + 1) - 1));
        }
        batches.add(batch);
      }
      tableFollowsATreeMapModel(batches, 1 + random.nextInt(6));
    }
  }

  private static void tableFollowsATreeMapModel(List<List<Action>> batches, int cap) {
    RoutingTable table = RoutingTable.empty(T0, cap);
    TreeMap<ServiceKey, List<Endpoint>> model = new TreeMap<>();
    Map<ServiceKey, Long> lastChanged = new HashMap<>();
    Map<Long, Set<ServiceKey>> changedAt = new HashMap<>();
    List<Snapshot> history = new ArrayList<>();
    history.add(new Snapshot(table, new TreeMap<>(model)));

    for (int step = 0; step < batches.size(); step++) {
      Map<ServiceKey, List<Endpoint>> upserts = new LinkedHashMap<>();
      Set<ServiceKey> removals = new LinkedHashSet<>();
      for (Action action : batches.get(step)) { // the last action on a key wins
        ServiceKey key = KEYS.get(action.key());
        upserts.remove(key);
        removals.remove(key);
        if (action.variant() < 0) {
          removals.add(key);
        } else {
          upserts.put(key, VARIANTS.get(action.variant()));
        }
      }
      Set<ServiceKey> effective = new TreeSet<>();
      upserts.forEach(
          (key, eps) -> {
            if (!eps.equals(model.get(key))) {
              effective.add(key);
            }
          });
      for (ServiceKey key : removals) {
        if (model.containsKey(key)) {
          effective.add(key);
        }
      }
      Instant now = T0.plusSeconds(step + 1);

      RoutingTable next = table.apply(states(upserts), removals, now);

      if (effective.isEmpty()) {
        assertThat(next).as("a batch that changes nothing publishes nothing").isSameAs(table);
        continue;
      }
      assertThat(next.version()).isEqualTo(table.version() + 1);
      assertThat(next.builtAt()).isEqualTo(now);
      model.putAll(upserts);
      removals.forEach(model::remove);
      for (ServiceKey key : effective) {
        lastChanged.put(key, next.version());
      }
      changedAt.put(next.version(), effective);
      table = next;
      history.add(new Snapshot(table, new TreeMap<>(model)));

      assertMatches(table, model, lastChanged);
      assertChangedSince(table, cap, changedAt, history);
    }

    for (Snapshot snapshot : history) {
      assertThat(contents(snapshot.table()))
          .as("version %d is unchanged by later applies", snapshot.table().version())
          .isEqualTo(snapshot.model());
    }
    for (int i = 1; i < history.size(); i++) {
      assertThat(history.get(i).table().version())
          .isGreaterThan(history.get(i - 1).table().version());
    }
  }

  private static TreeMap<ServiceKey, List<Endpoint>> contents(RoutingTable table) {
    TreeMap<ServiceKey, List<Endpoint>> contents = new TreeMap<>();
    for (ServiceEndpoints service : table.services()) {
      contents.put(service.key(), service.endpoints());
    }
    return contents;
  }

  private static void assertMatches(
      RoutingTable table,
      TreeMap<ServiceKey, List<Endpoint>> model,
      Map<ServiceKey, Long> lastChanged) {
    assertThat(table.services())
        .extracting(ServiceEndpoints::key)
        .containsExactlyElementsOf(model.keySet());
    assertThat(contents(table)).isEqualTo(model);
    assertThat(table.serviceCount()).isEqualTo(model.size());
    assertThat(table.endpointCount())
        .isEqualTo(model.values().stream().mapToLong(List::size).sum());
    for (ServiceEndpoints service : table.services()) {
      assertThat(service.version())
          .as("version of %s", service.key())
          .isEqualTo(lastChanged.get(service.key()));
    }
    for (ServiceKey key : KEYS) {
      assertThat(table.get(key).map(ServiceEndpoints::endpoints))
          .isEqualTo(Optional.ofNullable(model.get(key)));
    }
    for (String namespace : NAMESPACES) {
      assertThat(table.servicesIn(namespace))
          .extracting(ServiceEndpoints::key)
          .containsExactlyElementsOf(
              model
                  .subMap(new ServiceKey(namespace, ""), new ServiceKey(namespace + "\0", ""))
                  .keySet());
    }
  }

  private static void assertChangedSince(
      RoutingTable table, int cap, Map<Long, Set<ServiceKey>> changedAt, List<Snapshot> history) {
    long current = table.version();
    assertThat(table.changedSince(current + 1)).isEmpty();
    assertThat(table.changedSince(-1)).isEmpty();
    for (Snapshot snapshot : history) {
      long since = snapshot.table().version();
      Optional<Set<ServiceKey>> changed = table.changedSince(since);
      if (current - since > cap) {
        assertThat(changed)
            .as("changedSince(%d) at %d, capacity %d", since, current, cap)
            .isEmpty();
        continue;
      }
      Set<ServiceKey> expected = new TreeSet<>();
      for (long v = since + 1; v <= current; v++) {
        expected.addAll(changedAt.get(v));
      }
      assertThat(changed)
          .as("changedSince(%d) at %d, capacity %d", since, current, cap)
          .contains(expected);
      // What a resuming watcher relies on: every key that differs is among the changed ones.
      Set<ServiceKey> differing = new TreeSet<>();
      for (ServiceKey key : KEYS) {
        if (!Optional.ofNullable(snapshot.model().get(key))
            .equals(table.get(key).map(ServiceEndpoints::endpoints))) {
          differing.add(key);
        }
      }
      assertThat(expected).containsAll(differing);
    }
  }
}
