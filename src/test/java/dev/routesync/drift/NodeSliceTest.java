package dev.routesync.drift;

import static dev.routesync.drift.DriftFixtures.NAMESPACE;
import static dev.routesync.drift.DriftFixtures.NODE;
import static dev.routesync.drift.DriftFixtures.pod;
import static dev.routesync.drift.DriftFixtures.slice;
import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.rules.ControllerSlices;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPortBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link NodeSlice}: what the detector keeps of a slice is what {@link
 * ControllerSlices#readyUidsWithPort} reads of it, but only this node's pod uids and a count for
 * the others.
 */
class NodeSliceTest {

  @Test
  void keepsTheUidsOfThisNodesReadyPodsAndCountsEveryNodes() {
    EndpointSlice slice =
        slice(
            "quote",
            "quote-x",
            "http",
            List.of(
                pod("q-1", "uid-1", NODE, "http", true),
                pod("q-2", "uid-2", "node-b", "http", true),
                pod("q-3", "uid-3", "node-c", "http", true),
                pod("q-4", "uid-4", NODE, "http", true)));
    slice.getEndpoints().get(3).getConditions().setReady(false);

    NodeSlice kept = NodeSlice.of(slice, NODE);

    assertThat(kept.readyHere()).containsExactly("uid-1");
    assertThat(kept.readyPods()).isEqualTo(3);
    assertThat(kept.ports()).containsExactly("http");
    assertThat(kept.owner()).isEqualTo(new ServiceRef(NAMESPACE, "quote"));
    assertThat(kept.carries("http")).isTrue();
    assertThat(kept.carries("grpc")).isFalse();
    // The same answer as the rules give for a pod of this node, and the same count.
    assertThat(ControllerSlices.readyUidsWithPort(List.of(slice), "http"))
        .contains("uid-1")
        .hasSize(kept.readyPods());
  }

  @Test
  void anEndpointWithoutANodeNameIsKeptAReadyAbsentIsReadyAndAPodListedTwiceCountsOnce() {
    EndpointSlice slice =
        slice(
            "quote",
            "quote-x",
            "http",
            List.of(
                pod("q-1", "uid-1", null, "http", true),
                pod("q-2", "uid-2", "node-b", "http", true),
                pod("q-2", "uid-2", "node-b", "http", true)));
    slice.getEndpoints().get(1).setConditions(null);

    NodeSlice kept = NodeSlice.of(slice, NODE);

    assertThat(kept.readyHere()).containsExactly("uid-1");
    assertThat(kept.readyPods()).isEqualTo(2);
  }

  @Test
  void aSliceTheControllerDidNotWriteCountsForNoPort() {
    EndpointSlice slice =
        new EndpointSliceBuilder(
                slice("quote", "quote-x", "http", List.of(pod("q-1", "uid-1", NODE, "http", true))))
            .editMetadata()
            .addToLabels(ControllerSlices.MANAGED_BY_LABEL, "someone-else")
            .endMetadata()
            .build();

    NodeSlice kept = NodeSlice.of(slice, NODE);

    assertThat(kept.owner()).isEqualTo(new ServiceRef(NAMESPACE, "quote"));
    assertThat(kept.ports()).isEmpty();
    assertThat(kept.readyPods()).isZero();
    assertThat(kept.readyHere()).isEmpty();
  }

  @Test
  void anUnnamedPortIsTheEmptyNameAndAPortlessSliceCarriesNone() {
    EndpointSlice unnamed =
        new EndpointSliceBuilder(slice("quote", "quote-x", "http", List.of()))
            .withPorts(new EndpointPortBuilder().withPort(8080).withProtocol("TCP").build())
            .build();
    assertThat(NodeSlice.of(unnamed, NODE).ports()).containsExactly("");
    assertThat(NodeSlice.of(slice("quote", "quote-y", null, List.of()), NODE).ports()).isEmpty();
  }

  @Test
  void aSliceWithoutMetadataIsKeptAsNothingRatherThanThrowing() {
    assertThat(NodeSlice.of(new EndpointSlice(), NODE).owner()).isNull();
    assertThat(NodeSlice.of(null, NODE).owner()).isNull();
  }
}
