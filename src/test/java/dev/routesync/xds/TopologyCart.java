package dev.routesync.xds;

import dev.routesync.testing.MockCluster;
import dev.routesync.testing.Slices;
import dev.routesync.testing.Slices.Conditions;
import dev.routesync.testing.XdsBackends;
import dev.routesync.testing.XdsBackends.Backend;
import dev.routesync.testing.XdsObjects;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointHintsBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.util.List;

/**
 * Service {@code cart} in {@code shop} for the topology interop tests (one per xDS client): its
 * Service with a topology setting, and one slice per backend, written as the EndpointSlice
 * controller writes them (a slice per distinct resolved port, {@code nodeName} and {@code zone} on
 * every endpoint, a {@code targetRef} to the pod, zone hints set together with {@code
 * trafficDistribution}).
 */
record TopologyCart(MockCluster cluster, XdsBackends backends) {

  /** What clients call: port 8080 of cart.shop. */
  static final String TARGET = "xds:///cart.shop:8080";

  /** Writes the Service with these settings (null: the field is left out). */
  void service(String trafficDistribution, String internalTrafficPolicy) {
    Service cart = XdsObjects.service("shop", "cart", XdsObjects.port("http", 8080));
    cart.getSpec().setTrafficDistribution(trafficDistribution);
    cart.getSpec().setInternalTrafficPolicy(internalTrafficPolicy);
    cluster.apply(cart);
  }

  /**
   * Writes the slice of backend {@code id}: its pod on {@code node} in {@code zone}, hinted for
   * {@code hintZone} (null: no hint).
   */
  EndpointSlice slice(String id, String node, String zone, String hintZone) {
    EndpointSlice slice = sliceOf(id, node, zone);
    if (hintZone != null) {
      slice
          .getEndpoints()
          .get(0)
          .setHints(
              new EndpointHintsBuilder().addNewForZone().withName(hintZone).endForZone().build());
    }
    cluster.apply(slice);
    return slice;
  }

  /**
   * Rewrites the slice of backend {@code id} (no hints) with its pod's endpoint in {@code
   * conditions}, as the controller does when the pod begins terminating.
   */
  EndpointSlice sliceIn(String id, String node, String zone, Conditions conditions) {
    EndpointSlice slice = sliceOf(id, node, zone, conditions);
    cluster.apply(slice);
    return slice;
  }

  /** Deletes the slice of backend {@code id} (its pod left {@code node}). */
  void deleteSlice(String id, String node, String zone) {
    cluster.delete(sliceOf(id, node, zone));
  }

  private EndpointSlice sliceOf(String id, String node, String zone) {
    return sliceOf(id, node, zone, Conditions.READY);
  }

  private EndpointSlice sliceOf(String id, String node, String zone, Conditions conditions) {
    Backend backend = backends.get(id);
    return XdsObjects.slice(
        "shop",
        "cart-" + id,
        "cart",
        backend.port(),
        List.of(new Slices.Pod("cart-" + id, backend.ip(), node, zone, conditions)));
  }
}
