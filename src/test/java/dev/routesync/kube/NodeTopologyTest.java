package dev.routesync.kube;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.table.NodeLocality;
import dev.routesync.testing.MockCluster;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * This node's zone and region come from its own Node's labels, read from fabric8's CRUD mock; a
 * node without the label, a missing Node and {@code --zone} each give the locality kube-proxy would
 * use, and only a zone that arrives re-decides the Services.
 */
class NodeTopologyTest {

  private final MockCluster cluster = new MockCluster();
  private final AtomicInteger changes = new AtomicInteger();

  @AfterEach
  void stop() throws Exception {
    cluster.close();
  }

  private void node(String name, String zone, String region) {
    NodeBuilder node = new NodeBuilder().withNewMetadata().withName(name).endMetadata();
    if (zone != null) {
      node.editMetadata().addToLabels(NodeLabels.ZONE_LABEL, zone).endMetadata();
    }
    if (region != null) {
      node.editMetadata().addToLabels(NodeLabels.REGION_LABEL, region).endMetadata();
    }
    cluster.client().nodes().resource(node.build()).create();
  }

  @Test
  void theZoneAndRegionAreTheNodesLabelsAndTheirArrivalDecidesAgain() {
    node("node-1", "zone-a", "region-1");
    node("node-2", "zone-b", "region-1");
    NodeTopology topology = NodeTopology.of("node-1", Optional.empty(), changes::incrementAndGet);
    assertThat(topology.needsLookup()).isTrue();
    assertThat(topology.get()).isEqualTo(new NodeLocality("node-1", null, null));

    boolean again = topology.learned(NodeLabels.read(cluster.client(), "node-1"));

    assertThat(again).isFalse();
    assertThat(topology.get()).isEqualTo(new NodeLocality("node-1", "zone-a", "region-1"));
    assertThat(changes).hasValue(1);
    // The same answer again changes nothing.
    topology.learned(NodeLabels.read(cluster.client(), "node-1"));
    assertThat(changes).hasValue(1);
  }

  @Test
  void aNodeWithoutTheLabelKeepsNoZoneAndIsNotAskedAgain() {
    node("node-1", null, null);
    NodeTopology topology = NodeTopology.of("node-1", Optional.empty(), changes::incrementAndGet);

    assertThat(topology.learned(NodeLabels.read(cluster.client(), "node-1"))).isFalse();

    assertThat(topology.get().zone()).isNull();
    assertThat(changes).hasValue(0);
  }

  @Test
  void aMissingNodeKeepsNoZone() {
    NodeTopology topology = NodeTopology.of("node-9", Optional.empty(), changes::incrementAndGet);

    assertThat(topology.learned(NodeLabels.read(cluster.client(), "node-9"))).isFalse();

    assertThat(topology.get()).isEqualTo(new NodeLocality("node-9", null, null));
  }

  @Test
  void aRefusalIsAskedAgainAndLeavesNoZone() {
    NodeTopology topology = NodeTopology.of("node-1", Optional.empty(), changes::incrementAndGet);
    NodeLabels.Answer forbidden =
        new NodeLabels.Answer(
            false,
            Optional.empty(),
            Optional.empty(),
            Optional.of(new KubernetesClientException("forbidden", 403, null)));

    assertThat(topology.learned(forbidden)).isTrue();
    assertThat(topology.learned(forbidden)).isTrue();

    assertThat(topology.get().zone()).isNull();
    assertThat(changes).hasValue(0);
  }

  @Test
  void theZoneFlagOverridesAndNothingIsRead() {
    NodeTopology topology =
        NodeTopology.of("node-1", Optional.of("zone-x"), changes::incrementAndGet);

    assertThat(topology.needsLookup()).isFalse();
    assertThat(topology.get()).isEqualTo(new NodeLocality("node-1", "zone-x", null));
  }

  @Test
  void withoutANodeNameNothingIsRead() {
    NodeTopology topology = NodeTopology.of("", Optional.empty(), changes::incrementAndGet);

    assertThat(topology.needsLookup()).isFalse();
    assertThat(topology.get()).isEqualTo(NodeLocality.UNKNOWN);
  }
}
