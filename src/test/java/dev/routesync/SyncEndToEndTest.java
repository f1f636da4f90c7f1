package dev.routesync;

import static dev.routesync.testing.Slices.slice;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.routesync.table.Endpoint;
import dev.routesync.table.RoutingTable;
import dev.routesync.testing.AgentHarness;
import dev.routesync.testing.MockCluster;
import dev.routesync.testing.Slices.Conditions;
import dev.routesync.testing.Slices.Pod;
import io.fabric8.kubernetes.api.model.Endpoints;
import io.fabric8.kubernetes.api.model.EndpointsBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The agent against fabric8's CRUD mock API server: real HTTP, real watches. */
class SyncEndToEndTest {

  // Only stops a hang: how fast the agent follows is measured by the benchmarks, not asserted here.
  private static final Duration CONVERGE = Duration.ofSeconds(30);

  private MockCluster cluster;
  private AgentHarness agent;

  @BeforeEach
  void startCluster() throws Exception {
    cluster = new MockCluster();
  }

  @AfterEach
  void stop() throws Exception {
    cluster.close(); // first: see MockCluster#url
    if (agent != null) {
      agent.close();
    }
  }

  private static List<Pod> pods(int count) {
    List<Pod> pods = new ArrayList<>();
    for (int i = 1; i <= count; i++) {
      pods.add(Pod.ready("web-" + i, "10.0.0." + i));
    }
    return pods;
  }

  @Test
  void followsScaleUpAndPodDeletionAsTheSeedVerifies() throws Exception {
    cluster.apply(slice("shop", "web-a", "web", true, 8080, pods(2)));
    agent = AgentHarness.start(cluster.url());
    assertThat(agent.ips("shop", "web")).containsExactly("10.0.0.1", "10.0.0.2");

    cluster.apply(slice("shop", "web-a", "web", true, 8080, pods(3)));
    await().atMost(CONVERGE).until(() -> agent.ips("shop", "web").size() == 3);

    cluster.apply(
        slice("shop", "web-a", "web", true, 8080, List.of(pods(3).get(0), pods(3).get(2))));
    await()
        .atMost(CONVERGE)
        .untilAsserted(
            () -> assertThat(agent.ips("shop", "web")).containsExactly("10.0.0.1", "10.0.0.3"));
  }

  @Test
  void unlabelledServicesNeverAppearAndRemovingTheLabelDropsTheService() throws Exception {
    cluster.apply(slice("shop", "web-a", "web", true, 8080, pods(2)));
    cluster.apply(slice("shop", "admin-a", "admin", false, 8080, pods(1)));
    agent = AgentHarness.start(cluster.url());
    assertThat(agent.service("shop", "web")).isPresent();
    assertThat(agent.service("shop", "admin")).isEmpty();

    cluster.apply(slice("shop", "web-a", "web", false, 8080, pods(2)));
    await().atMost(CONVERGE).until(() -> agent.service("shop", "web").isEmpty());
    assertThat(agent.published())
        .allSatisfy(t -> assertThat(t.get(key("shop", "admin"))).isEmpty());
  }

  @Test
  void notReadyEndpointsNeverAppear() throws Exception {
    List<Pod> pods = new ArrayList<>(pods(2));
    pods.add(new Pod("web-3", "10.0.0.3", "n", "z", Conditions.NOT_READY));
    cluster.apply(slice("shop", "web-a", "web", true, 8080, pods));
    agent = AgentHarness.start(cluster.url());
    assertThat(agent.ips("shop", "web")).containsExactly("10.0.0.1", "10.0.0.2");

    pods.set(0, pods.get(0).with(Conditions.NOT_READY));
    cluster.apply(slice("shop", "web-a", "web", true, 8080, pods));
    await().atMost(CONVERGE).until(() -> agent.ips("shop", "web").equals(List.of("10.0.0.2")));
    assertThat(agent.published())
        .allSatisfy(
            t ->
                t.services()
                    .forEach(
                        s ->
                            assertThat(s.endpoints())
                                .allSatisfy(e -> assertThat(e.ready()).isTrue())));
  }

  @Test
  void mergesAllSlicesOfAServiceAndPublishesEachIpOnce() throws Exception {
    cluster.apply(slice("shop", "web-a", "web", true, 8080, pods(2)));
    cluster.apply(
        slice(
            "shop",
            "web-b",
            "web",
            true,
            8080,
            List.of(Pod.ready("web-2", "10.0.0.2"), Pod.ready("web-9", "10.0.0.9"))));
    agent = AgentHarness.start(cluster.url());
    assertThat(agent.ips("shop", "web")).containsExactly("10.0.0.1", "10.0.0.2", "10.0.0.9");

    cluster.delete(slice("shop", "web-b", "web", true, 8080, List.of()));
    await()
        .atMost(CONVERGE)
        .until(() -> agent.ips("shop", "web").equals(List.of("10.0.0.1", "10.0.0.2")));
  }

  @Test
  void publishesServingTerminatingEndpointsWhenNoneIsReady() throws Exception {
    cluster.apply(slice("shop", "web-a", "web", true, 8080, pods(2)));
    agent = AgentHarness.start(cluster.url());

    List<Pod> draining =
        List.of(
            new Pod("web-1", "10.0.0.1", "n", "z", Conditions.TERMINATING_SERVING),
            new Pod("web-2", "10.0.0.2", "n", "z", Conditions.TERMINATING));
    cluster.apply(slice("shop", "web-a", "web", true, 8080, draining));
    await().atMost(CONVERGE).until(() -> agent.ips("shop", "web").equals(List.of("10.0.0.1")));
    Endpoint endpoint = agent.service("shop", "web").orElseThrow().endpoints().get(0);
    assertThat(endpoint.terminating()).isTrue();
    assertThat(endpoint.ready()).isFalse();
    assertThat(endpoint.serving()).isTrue();
  }

  @Test
  void skipsMalformedObjectsAndKeepsTheRestOfTheTableRight() throws Exception {
    cluster.apply(slice("shop", "web-a", "web", true, 8080, pods(2)));
    cluster.apply(slice("shop", "api-a", "api", true, 8080, pods(1)));
    agent = AgentHarness.start(cluster.url());

    EndpointSlice badIp =
        new EndpointSliceBuilder(
                slice(
                    "shop", "web-b", "web", true, 8080, List.of(Pod.ready("web-7", "10.0.0.300"))))
            .build();
    EndpointSlice badPort =
        new EndpointSliceBuilder(slice("shop", "api-b", "api", true, 8080, pods(3)))
            .editFirstPort()
            .withPort(70000)
            .endPort()
            .build();
    EndpointSlice noServiceLabel = slice("shop", "orphan", "orphan", true, 8080, pods(1));
    noServiceLabel.getMetadata().getLabels().remove("kubernetes.io/service-name");
    cluster.apply(badIp);
    cluster.apply(badPort);
    cluster.apply(noServiceLabel);

    await()
        .atMost(CONVERGE)
        .untilAsserted(
            () -> {
              assertThat(agent.counter("routesync.objects.skipped", "reason", "invalid_ip"))
                  .isPositive();
              assertThat(agent.counter("routesync.objects.skipped", "reason", "invalid_port"))
                  .isPositive();
              assertThat(agent.counter("routesync.objects.skipped", "reason", "no_service_label"))
                  .isPositive();
            });
    assertThat(agent.ips("shop", "web")).containsExactly("10.0.0.1", "10.0.0.2");
    assertThat(agent.ips("shop", "api")).containsExactly("10.0.0.1");
    assertThat(agent.table().serviceCount()).isEqualTo(2);
  }

  @Test
  void aBurstOfUpdatesToOneServicePublishesAHandfulOfVersionsAndEndsExact() throws Exception {
    // Not the burst's final state (1 pod), or the wait below could pass before any event arrived.
    cluster.apply(slice("shop", "web-a", "web", true, 8080, pods(2)));
    agent =
        AgentHarness.start(
            cluster.url(),
            dev.routesync.config.Source.ENDPOINTSLICES,
            // How long 1,000 writes take depends on the machine; a longer quiet period keeps
            // pauses in the writer from counting as quiet spells.
            new dev.routesync.sync.CoalescerSettings(
                Duration.ofMillis(200), Duration.ofSeconds(1), 5000),
            Duration.ofSeconds(10),
            0);
    long before = agent.table().version();
    int updates = 1000;
    long start = System.nanoTime();
    for (int i = 1; i <= updates; i++) {
      // The pod count cycles 1..20.
      cluster.apply(slice("shop", "web-a", "web", true, 8080, pods(i % 20 + 1)));
    }
    List<String> expected = pods(updates % 20 + 1).stream().map(Pod::ip).toList();
    await().atMost(CONVERGE).until(() -> agent.ips("shop", "web").equals(expected));
    long elapsedMillis = (System.nanoTime() - start) / 1_000_000;
    long versions = agent.table().version() - before;
    System.out.printf(
        "burst: %d updates to one Service in %d ms published %d versions%n",
        updates, elapsedMillis, versions);
    // About one version per max-delay window while the burst lasts, plus the leading edge and
    // the tail: a handful, not one per update.
    assertThat(versions).isBetween(1L, (long) updates / 20);
    assertThat(agent.counter("routesync.events", "kind", "EndpointSlice", "type", "updated"))
        .isGreaterThan(versions * 10.0);
  }

  @Test
  void replayingIdenticalObjectsPublishesNoVersion() throws Exception {
    EndpointSlice web = slice("shop", "web-a", "web", true, 8080, pods(2));
    cluster.apply(web);
    agent = AgentHarness.start(cluster.url());
    RoutingTable before = agent.table();
    double batchesBefore = totalBatches();

    // Same endpoints, new annotation: a real MODIFIED event that changes nothing routable.
    for (int i = 0; i < 5; i++) {
      EndpointSlice touched =
          new EndpointSliceBuilder(web)
              .editMetadata()
              .addToAnnotations("touch", "" + i)
              .endMetadata()
              .build();
      cluster.apply(touched);
    }
    // Every event was received and at least one batch recomputed the service since.
    await()
        .atMost(CONVERGE)
        .until(
            () ->
                agent.counter("routesync.events", "kind", "EndpointSlice", "type", "updated") >= 5
                    && totalBatches() > batchesBefore);
    assertThat(agent.table()).isSameAs(before);
  }

  @Test
  void legacyEndpointsSourcePublishesOnlyReadyAddresses() throws Exception {
    Endpoints web =
        new EndpointsBuilder()
            .withNewMetadata()
            .withNamespace("shop")
            .withName("web")
            .addToLabels("mesh-managed", "true")
            .endMetadata()
            .addNewSubset()
            .addNewAddress()
            .withIp("10.0.0.1")
            .withNodeName("node-a")
            .endAddress()
            .addNewNotReadyAddress()
            .withIp("10.0.0.2")
            .endNotReadyAddress()
            .addNewPort()
            .withName("http")
            .withPort(8080)
            .endPort()
            .endSubset()
            .build();
    Endpoints unlabelled =
        new EndpointsBuilder(web)
            .editMetadata()
            .withName("admin")
            .withLabels(Map.of())
            .endMetadata()
            .build();
    cluster.client().resource(web).create();
    cluster.client().resource(unlabelled).create();
    agent =
        AgentHarness.start(
            cluster.url(),
            dev.routesync.config.Source.ENDPOINTS,
            AgentHarness.FAST,
            Duration.ofSeconds(10),
            0);
    assertThat(agent.ips("shop", "web")).containsExactly("10.0.0.1");
    assertThat(agent.service("shop", "admin")).isEmpty();

    cluster
        .client()
        .resource(
            new EndpointsBuilder(web)
                .editFirstSubset()
                .addNewAddress()
                .withIp("10.0.0.3")
                .endAddress()
                .endSubset()
                .build())
        .update();
    await()
        .atMost(CONVERGE)
        .until(() -> agent.ips("shop", "web").equals(List.of("10.0.0.1", "10.0.0.3")));
    cluster.client().resource(web).delete();
    await().atMost(CONVERGE).until(() -> agent.service("shop", "web").isEmpty());
  }

  private double totalBatches() {
    return agent.agent().registry().find("routesync.batches").counters().stream()
        .mapToDouble(c -> c.count())
        .sum();
  }

  private static dev.routesync.table.ServiceKey key(String namespace, String name) {
    return new dev.routesync.table.ServiceKey(namespace, name);
  }
}
