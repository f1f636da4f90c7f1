package dev.routesync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.routesync.kube.translate.SliceTranslator;
import dev.routesync.table.Endpoint;
import dev.routesync.table.RoutingTable;
import dev.routesync.table.ServiceEndpoints;
import dev.routesync.table.ServiceKey;
import dev.routesync.testing.AgentHarness;
import dev.routesync.testing.MockCluster;
import dev.routesync.testing.Slices;
import dev.routesync.testing.Slices.Conditions;
import dev.routesync.testing.Slices.Pod;
import dev.routesync.testing.TcpProxy;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Model-based check of the whole pipeline: random sequences of creates, updates, deletes, label
 * flips, duplicate deliveries and API server restarts (with changes made while the agent was away).
 * After each sequence settles, the published table must hold, for every Service, the addresses an
 * independent oracle reads off the objects the API server holds by docs/routing.md's rules ({@link
 * #expectedAddresses}), and equal a from-scratch translation of those objects (the incremental
 * pipeline agrees with the batch one on ports, zones and hints, which the translator's own tests
 * check); and across every published version, versions only grow.
 *
 * <p>Seeded and reproducible: {@code -Droutesync.seed=N} replays a run, {@code
 * -Droutesync.sequences=N} runs more.
 */
class RandomizedSyncTest {

  private static final long SEED = Long.getLong("routesync.seed", 20261129L);
  private static final int SEQUENCES = Integer.getInteger("routesync.sequences", 24);
  private static final int OPERATIONS = 40;
  private static final List<String> NAMESPACES = List.of("ns1", "ns2");
  private static final List<String> SERVICES = List.of("a", "b", "c", "d");

  private final Random random = new Random(SEED);
  private int sliceCounter;

  @Test
  void publishedTableAlwaysConvergesToAFreshComputationFromTheServer() throws Exception {
    List<MockCluster> servers = new ArrayList<>();
    MockCluster server = new MockCluster();
    servers.add(server);
    int restarts = 0;
    try (TcpProxy proxy = new TcpProxy(server.port());
        AgentHarness agent = AgentHarness.start(proxy.url()).cutOnClose(proxy)) {
      for (int sequence = 0; sequence < SEQUENCES; sequence++) {
        for (int op = 0; op < OPERATIONS; op++) {
          step(server);
        }
        if (random.nextInt(3) == 0) {
          server = restart(server, proxy, agent);
          servers.add(server);
          restarts++;
        }
        MockCluster settled = server;
        int seq = sequence;
        await()
            .atMost(Duration.ofSeconds(15))
            .untilAsserted(
                () -> {
                  RoutingTable table = agent.table();
                  assertThat(publishedAddresses(table))
                      .as("seed %d, sequence %d: addresses", SEED, seq)
                      .isEqualTo(expectedAddresses(settled));
                  assertThat(published(table))
                      .as("seed %d, sequence %d: endpoints", SEED, seq)
                      .isEqualTo(expected(settled));
                });
      }
      List<RoutingTable> versions = agent.published();
      for (int i = 1; i < versions.size(); i++) {
        assertThat(versions.get(i).version()).isGreaterThan(versions.get(i - 1).version());
      }
      assertThat(restarts).isPositive();
      System.out.printf(
          "randomized sync: seed %d, %d sequences x %d operations, %d restarts, %d versions%n",
          SEED, SEQUENCES, OPERATIONS, restarts, versions.size());
    } finally {
      for (MockCluster each : servers) {
        each.close();
      }
    }
  }

  private void step(MockCluster server) {
    List<EndpointSlice> existing = server.slices();
    int choice = existing.isEmpty() ? 0 : random.nextInt(10);
    switch (choice) {
      case 0, 1, 2 -> server.apply(randomSlice(null));
      case 3, 4 -> server.apply(randomSlice(pick(existing)));
      case 5 -> server.delete(pick(existing));
      case 6 -> {
        EndpointSlice slice = pick(existing);
        Map<String, String> labels = new TreeMap<>(slice.getMetadata().getLabels());
        if (labels.remove(Slices.MESH_LABEL) == null) {
          labels.put(Slices.MESH_LABEL, "true");
        }
        server.apply(
            new EndpointSliceBuilder(slice)
                .editMetadata()
                .withLabels(labels)
                .withResourceVersion(null)
                .endMetadata()
                .build());
      }
      default -> {
        // A duplicate delivery: the identical object again.
        EndpointSlice slice = pick(existing);
        server.apply(
            new EndpointSliceBuilder(slice)
                .editMetadata()
                .withResourceVersion(null)
                .endMetadata()
                .build());
      }
    }
  }

  /** A server restart: the new server holds what the old one did, plus changes made meanwhile. */
  private MockCluster restart(MockCluster old, TcpProxy proxy, AgentHarness agent)
      throws Exception {
    MockCluster next = new MockCluster();
    for (EndpointSlice slice : old.slices()) {
      next.apply(
          new EndpointSliceBuilder(slice)
              .editMetadata()
              .withResourceVersion(null)
              .endMetadata()
              .build());
    }
    proxy.cut();
    int changes = 1 + random.nextInt(4);
    for (int i = 0; i < changes; i++) {
      step(next);
    }
    await().atMost(Duration.ofSeconds(15)).until(() -> agent.disconnectedSeconds() > 0.5);
    double relistsBefore = agent.counter("routesync.batches", "cause", "relist");
    proxy.restore(next.port());
    // Let the relists swap in before writing again: the old generation's watch is closed then, and
    // the mock deadlocks for up to 30 s if a watch is closed while it is sending an event on it.
    // Two: the EndpointSlice watch and the Services watch each relist, each as its own batch, and
    // the Services one (nothing to list here) may well come first.
    await()
        .atMost(Duration.ofSeconds(15))
        .until(() -> agent.counter("routesync.batches", "cause", "relist") >= relistsBefore + 2);
    return next;
  }

  private EndpointSlice randomSlice(EndpointSlice replacing) {
    String namespace;
    String service;
    String name;
    if (replacing == null) {
      namespace = pick(NAMESPACES);
      service = pick(SERVICES);
      name = service + "-" + sliceCounter++;
    } else {
      namespace = replacing.getMetadata().getNamespace();
      service = replacing.getMetadata().getLabels().get(SliceTranslator.SERVICE_NAME_LABEL);
      name = replacing.getMetadata().getName();
    }
    List<Pod> pods = new ArrayList<>();
    int count = random.nextInt(5);
    for (int i = 0; i < count; i++) {
      // A small IP pool, so the same IP often lands in two slices of one service.
      int host = 1 + random.nextInt(6);
      Conditions conditions = Conditions.values()[random.nextInt(Conditions.values().length)];
      pods.add(
          new Pod(
              "p" + host, "10.0.0." + host, "node-" + host % 2, "zone-" + host % 3, conditions));
    }
    boolean labelled =
        replacing == null
            ? random.nextInt(5) != 0
            : replacing.getMetadata().getLabels().containsKey(Slices.MESH_LABEL);
    return Slices.slice(namespace, name, service, labelled, 8000 + random.nextInt(2), pods);
  }

  private static Map<ServiceKey, List<Endpoint>> published(RoutingTable table) {
    return table.services().stream()
        .collect(
            Collectors.toMap(
                ServiceEndpoints::key, ServiceEndpoints::endpoints, (a, b) -> a, TreeMap::new));
  }

  /** Each Service's published addresses, a serving terminating one marked as such. */
  private static Map<ServiceKey, List<String>> publishedAddresses(RoutingTable table) {
    Map<ServiceKey, List<String>> addresses = new TreeMap<>();
    for (ServiceEndpoints service : table.services()) {
      addresses.put(
          service.key(),
          service.endpoints().stream()
              .map(e -> e.ready() ? e.ip() : e.ip() + TERMINATING)
              .sorted()
              .toList());
    }
    return addresses;
  }

  private static final String TERMINATING = " (serving, terminating)";

  /**
   * The oracle, independent of the production translation: docs/routing.md's rules applied to the
   * server's slices as they are. Every Service with a mesh-managed slice is published; its
   * addresses are those some slice lists as ready, or, when no slice lists any address as ready,
   * those listed as serving and terminating; an address listed twice counts once, its ready copy
   * winning. The random slices set every condition explicitly, so no default applies.
   */
  private static Map<ServiceKey, List<String>> expectedAddresses(MockCluster server) {
    Map<ServiceKey, Set<String>> ready = new TreeMap<>();
    Map<ServiceKey, Set<String>> servingTerminating = new TreeMap<>();
    for (EndpointSlice slice : server.slices()) {
      Map<String, String> labels = slice.getMetadata().getLabels();
      if (labels == null || !"true".equals(labels.get(Slices.MESH_LABEL))) {
        continue;
      }
      ServiceKey key =
          new ServiceKey(
              slice.getMetadata().getNamespace(), labels.get("kubernetes.io/service-name"));
      ready.computeIfAbsent(key, k -> new TreeSet<>());
      servingTerminating.computeIfAbsent(key, k -> new TreeSet<>());
      for (var endpoint : slice.getEndpoints()) {
        var conditions = endpoint.getConditions();
        String ip = endpoint.getAddresses().get(0);
        if (conditions.getReady()) {
          ready.get(key).add(ip);
        } else if (conditions.getServing() && conditions.getTerminating()) {
          servingTerminating.get(key).add(ip + TERMINATING);
        }
      }
    }
    Map<ServiceKey, List<String>> expected = new TreeMap<>();
    ready.forEach(
        (key, ips) ->
            expected.put(key, List.copyOf(ips.isEmpty() ? servingTerminating.get(key) : ips)));
    return expected;
  }

  /** Every labelled slice on the server, translated from scratch by the production translator. */
  private static Map<ServiceKey, List<Endpoint>> expected(MockCluster server) {
    Map<ServiceKey, List<EndpointSlice>> byService = new TreeMap<>();
    for (EndpointSlice slice : server.slices()) {
      Map<String, String> labels = slice.getMetadata().getLabels();
      if (labels != null && "true".equals(labels.get(Slices.MESH_LABEL))) {
        SliceTranslator.serviceKeyOf(slice)
            .ifPresent(key -> byService.computeIfAbsent(key, k -> new ArrayList<>()).add(slice));
      }
    }
    Map<ServiceKey, List<Endpoint>> expected = new TreeMap<>();
    byService.forEach(
        (key, slices) -> expected.put(key, SliceTranslator.translate(slices).endpoints()));
    return expected;
  }

  private <T> T pick(List<T> items) {
    return items.get(random.nextInt(items.size()));
  }
}
