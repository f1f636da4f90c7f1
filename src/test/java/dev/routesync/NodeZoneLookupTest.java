package dev.routesync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.routesync.kube.NodeLabels;
import dev.routesync.kube.NodeTopology;
import dev.routesync.table.NodeLocality;
import dev.routesync.testing.MockCluster;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The agent's zone lookup part reads this node's Node from the API server, off the sync loop. */
class NodeZoneLookupTest {

  private final MockCluster cluster = new MockCluster();
  private final Vertx vertx = Vertx.vertx();
  private final AtomicInteger changes = new AtomicInteger();

  @AfterEach
  void stop() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
    cluster.close();
  }

  @Test
  void theNodesZoneLabelReachesTheTopologyOnceStarted() throws Exception {
    cluster
        .client()
        .nodes()
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName("node-1")
                .addToLabels(NodeLabels.ZONE_LABEL, "zone-b")
                .addToLabels(NodeLabels.REGION_LABEL, "region-1")
                .endMetadata()
                .build())
        .create();
    NodeTopology topology = NodeTopology.of("node-1", Optional.empty(), changes::incrementAndGet);
    NodeZoneLookup lookup =
        new NodeZoneLookup(vertx, vertx.getOrCreateContext(), cluster.client(), "node-1", topology);

    lookup.start().await(10, TimeUnit.SECONDS);

    await()
        .atMost(Duration.ofSeconds(10))
        .until(topology::get, locality -> locality.zone() != null);
    assertThat(topology.get()).isEqualTo(new NodeLocality("node-1", "zone-b", "region-1"));
    assertThat(changes).hasValue(1);
    assertThat(lookup.stop().succeeded()).isTrue();
  }
}
