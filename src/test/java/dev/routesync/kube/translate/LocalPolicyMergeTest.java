package dev.routesync.kube.translate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import dev.routesync.table.Endpoint;
import dev.routesync.table.ServiceTraffic;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPortBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A Service with {@code internalTrafficPolicy: Local} keeps its serving terminating endpoints
 * beside the ready ones, because each node chooses among its own (kube-proxy's {@code
 * CategorizeEndpoints}); every other Service keeps the ready ones only, or the serving terminating
 * ones when none is ready anywhere. Slices as the EndpointSlice controller writes them: {@code
 * nodeName}, {@code zone} and a {@code targetRef} on every endpoint.
 */
class LocalPolicyMergeTest {

  /** internalTrafficPolicy: Local, IPv4 first. */
  private static final ServiceTraffic LOCAL = ServiceTraffic.of(null, true);

  /** One endpoint of a slice: its pod, address, node and conditions. */
  private record Listed(
      String pod, String ip, String node, boolean ready, boolean serving, boolean terminating) {}

  // web-1 on node-a is draining (still serving); web-2 on node-b is ready; web-3 on node-b has
  // stopped serving while terminating; web-4 on node-a is starting (not ready, not serving).
  private static final Listed DRAINING_HERE =
      new Listed("web-1", "10.0.0.1", "node-a", false, true, true);
  private static final Listed READY_THERE =
      new Listed("web-2", "10.0.0.2", "node-b", true, true, false);
  private static final Listed GONE_THERE =
      new Listed("web-3", "10.0.0.3", "node-b", false, false, true);
  private static final Listed STARTING_HERE =
      new Listed("web-4", "10.0.0.4", "node-a", false, false, false);

  @Test
  void aLocalServiceKeepsServingTerminatingEndpointsBesideTheReadyOnes() {
    List<ObjectTranslation> one =
        List.of(
            SliceTranslator.translateOne(
                slice("web-abc", DRAINING_HERE, READY_THERE, GONE_THERE, STARTING_HERE)));

    List<Endpoint> local = ServiceMerge.merge(one, LOCAL).endpoints();

    assertThat(local)
        .extracting(
            Endpoint::ip, Endpoint::node, Endpoint::ready, Endpoint::serving, Endpoint::terminating)
        .containsExactly(
            tuple("10.0.0.1", "node-a", false, true, true),
            tuple("10.0.0.2", "node-b", true, true, false));
  }

  @Test
  void aLocalServiceSpreadOverSlicesKeepsThemToo() {
    List<ObjectTranslation> two =
        List.of(
            SliceTranslator.translateOne(slice("web-abc", DRAINING_HERE, GONE_THERE)),
            SliceTranslator.translateOne(slice("web-def", READY_THERE, STARTING_HERE)));

    assertThat(ServiceMerge.merge(two, LOCAL).endpoints())
        .extracting(Endpoint::ip, Endpoint::ready)
        .containsExactly(tuple("10.0.0.1", false), tuple("10.0.0.2", true));
  }

  @Test
  void everyOtherServiceKeepsTheReadyOnesOnlyAsBefore() {
    List<ObjectTranslation> one =
        List.of(
            SliceTranslator.translateOne(
                slice("web-abc", DRAINING_HERE, READY_THERE, GONE_THERE, STARTING_HERE)));
    List<ObjectTranslation> two =
        List.of(
            SliceTranslator.translateOne(slice("web-abc", DRAINING_HERE, GONE_THERE)),
            SliceTranslator.translateOne(slice("web-def", READY_THERE, STARTING_HERE)));

    assertThat(ServiceMerge.merge(one, ServiceTraffic.DEFAULT).endpoints())
        .extracting(Endpoint::ip)
        .containsExactly("10.0.0.2");
    assertThat(ServiceMerge.merge(two, ServiceTraffic.DEFAULT).endpoints())
        .extracting(Endpoint::ip)
        .containsExactly("10.0.0.2");
    assertThat(ServiceMerge.merge(one).endpoints())
        .extracting(Endpoint::ip)
        .containsExactly("10.0.0.2");
  }

  @Test
  void withNothingReadyAnywhereBothKeepTheServingTerminatingOnes() {
    List<ObjectTranslation> one =
        List.of(SliceTranslator.translateOne(slice("web-abc", DRAINING_HERE, GONE_THERE)));

    assertThat(ServiceMerge.merge(one, LOCAL).endpoints())
        .extracting(Endpoint::ip)
        .containsExactly("10.0.0.1");
    assertThat(ServiceMerge.merge(one, ServiceTraffic.DEFAULT).endpoints())
        .extracting(Endpoint::ip)
        .containsExactly("10.0.0.1");
  }

  @Test
  void aHealthyLocalServiceIsTheStoredListItself() {
    ObjectTranslation object = SliceTranslator.translateOne(slice("web-abc", READY_THERE));

    assertThat(ServiceMerge.merge(List.of(object), LOCAL).endpoints()).isSameAs(object.endpoints());
  }

  private static EndpointSlice slice(String name, Listed... listed) {
    List<io.fabric8.kubernetes.api.model.discovery.v1.Endpoint> endpoints = new ArrayList<>();
    for (Listed one : listed) {
      endpoints.add(
          new EndpointBuilder()
              .withAddresses(one.ip())
              .withNodeName(one.node())
              .withZone("zone-a")
              .withNewConditions()
              .withReady(one.ready())
              .withServing(one.serving())
              .withTerminating(one.terminating())
              .endConditions()
              .withTargetRef(
                  new ObjectReferenceBuilder()
                      .withKind("Pod")
                      .withNamespace("shop")
                      .withName(one.pod())
                      .withUid("uid-" + one.pod())
                      .build())
              .build());
    }
    return new EndpointSliceBuilder()
        .withNewMetadata()
        .withNamespace("shop")
        .withName(name)
        .addToLabels(SliceTranslator.SERVICE_NAME_LABEL, "web")
        .endMetadata()
        .withAddressType("IPv4")
        .withPorts(
            new EndpointPortBuilder().withName("http").withPort(8080).withProtocol("TCP").build())
        .withEndpoints(endpoints)
        .build();
  }
}
