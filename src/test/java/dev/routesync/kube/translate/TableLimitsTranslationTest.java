package dev.routesync.kube.translate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.table.Endpoint;
import dev.routesync.table.Port;
import dev.routesync.table.ServiceTraffic;
import dev.routesync.table.TableLimits;
import io.fabric8.kubernetes.api.model.EndpointAddressBuilder;
import io.fabric8.kubernetes.api.model.EndpointSubset;
import io.fabric8.kubernetes.api.model.Endpoints;
import io.fabric8.kubernetes.api.model.EndpointsBuilder;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointHintsBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPort;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPortBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Objects the API server accepts but a table entry cannot hold as they are: translation cuts the
 * least that keeps the table true (the first 1,024 ports by name; an over-long optional value left
 * out, the endpoint kept) and reports it as one {@code over_state_limits} skip per object, or per
 * Service when only the merge of its objects goes over.
 */
class TableLimitsTranslationTest {

  private static final String OVER = "x".repeat(TableLimits.MAX_STRING_BYTES + 1);

  @Test
  void anAddressInElevenSlicesOfAHundredPortsKeepsTheFirst1024ByNameAsOneSkipOfTheService() {
    List<EndpointSlice> slices = new ArrayList<>();
    for (int s = 0; s < 11; s++) {
      slices.add(slice("web-" + s, "IPv4", ports(s * 100, 100), endpoint("10.0.0.1", "pod-1")));
    }
    slices.add(slice("web-other", "IPv4", ports(0, 1), endpoint("10.0.0.2", "pod-2")));

    Translation translation = SliceTranslator.translate(slices);

    List<Port> ports = translation.endpoints().get(0).ports();
    assertThat(ports).hasSize(TableLimits.MAX_PORTS);
    assertThat(ports.get(0).name()).isEqualTo(name(0));
    assertThat(ports.get(TableLimits.MAX_PORTS - 1).name()).isEqualTo(name(1_023));
    assertThat(translation.endpoints().get(1).ports()).hasSize(1);
    assertThat(translation.skips())
        .singleElement()
        .satisfies(
            skip -> {
              assertThat(skip.reason()).isEqualTo(SkipReason.OVER_STATE_LIMITS);
              assertThat(skip.object()).isEqualTo("Service shop/web");
              assertThat(skip.detail()).contains("10.0.0.1", "1,100 ports", "first 1,024");
            });
  }

  @Test
  void aDualStackPodsPortsUnionedOverTheLimitAreCutAfterThePairIsMade() {
    List<EndpointSlice> slices = new ArrayList<>();
    for (int s = 0; s < 6; s++) {
      slices.add(slice("v4-" + s, "IPv4", ports(s * 100, 100), endpoint("10.0.0.1", "pod-1")));
      slices.add(slice("v6-" + s, "IPv6", ports(600 + s * 100, 100), endpoint("fd00::1", "pod-1")));
    }

    Translation translation = SliceTranslator.translate(slices);

    Endpoint pair = translation.endpoints().get(0);
    assertThat(pair.additionalAddresses()).containsExactly("fd00::1");
    assertThat(pair.ports()).hasSize(TableLimits.MAX_PORTS);
    assertThat(translation.skips())
        .extracting(Skip::reason)
        .containsExactly(SkipReason.OVER_STATE_LIMITS);
  }

  @Test
  void aSliceOfMorePortsThanTheLimitKeepsTheFirstAndIsOneSkipOfTheSlice() {
    // The API server allows 100 ports a slice; the agent must not trust that for its file.
    EndpointSlice wide =
        slice(
            "web-a",
            "IPv4",
            ports(0, 1_100),
            endpoint("10.0.0.1", "pod-1"),
            endpoint("10.0.0.2", "pod-2"));

    ObjectTranslation translation = SliceTranslator.translateOne(wide);

    assertThat(translation.endpoints())
        .allSatisfy(e -> assertThat(e.ports()).hasSize(TableLimits.MAX_PORTS));
    assertThat(translation.skips())
        .singleElement()
        .satisfies(
            skip -> {
              assertThat(skip.object()).isEqualTo("EndpointSlice shop/web-a");
              assertThat(skip.resourceVersion()).isEqualTo("7");
              assertThat(skip.detail()).contains("the slice has 1,100 ports");
            });
  }

  @Test
  void overLongZoneNodePodAndHintNamesAreLeftOutAndTheEndpointKept() {
    var bad = endpoint("10.0.0.1", OVER);
    bad.setZone(OVER);
    bad.setNodeName(OVER);
    bad.setHints(
        new EndpointHintsBuilder()
            .addNewForZone()
            .withName(OVER)
            .endForZone()
            .addNewForZone()
            .withName("zone-b")
            .endForZone()
            .build());
    var good = endpoint("10.0.0.2", "pod-2");

    ObjectTranslation translation =
        SliceTranslator.translateOne(slice("web-a", "IPv4", ports(0, 1), bad, good));

    Endpoint kept = translation.endpoints().get(0);
    assertThat(kept.ip()).isEqualTo("10.0.0.1");
    assertThat(kept.ready()).isTrue();
    assertThat(kept.zone()).isNull();
    assertThat(kept.node()).isNull();
    assertThat(kept.pod()).isNull();
    assertThat(kept.hints().forZones()).containsExactly("zone-b");
    assertThat(translation.endpoints().get(1))
        .extracting(Endpoint::zone, Endpoint::node, Endpoint::pod)
        .containsExactly("zone-a", "node-a", "pod-2");
    assertThat(translation.skips())
        .singleElement()
        .satisfies(
            skip -> {
              assertThat(skip.reason()).isEqualTo(SkipReason.OVER_STATE_LIMITS);
              assertThat(skip.detail()).contains("zone of 10.0.0.1", "1,025 bytes", "4 cuts");
            });
  }

  @Test
  void theLimitIsInUtf8BytesNotCharacters() {
    var wide = endpoint("10.0.0.1", "pod-1");
    wide.setZone("€".repeat(400)); // 400 characters, 1,200 bytes
    var narrow = endpoint("10.0.0.2", "pod-2");
    narrow.setZone("é".repeat(500)); // 500 characters, 1,000 bytes

    ObjectTranslation translation =
        SliceTranslator.translateOne(slice("web-a", "IPv4", ports(0, 1), wide, narrow));

    assertThat(translation.endpoints())
        .extracting(Endpoint::zone)
        .containsExactly(null, "é".repeat(500));
  }

  @Test
  void aPortNameNoTableStringHoldsLeavesTheSliceOutAsAnInvalidPortDoes() {
    EndpointPort port =
        new EndpointPortBuilder().withName(OVER).withPort(80).withProtocol("TCP").build();
    ObjectTranslation translation =
        SliceTranslator.translateOne(
            slice("web-a", "IPv4", List.of(port), endpoint("10.0.0.1", "p")));

    assertThat(translation.endpoints()).isEmpty();
    assertThat(translation.skips())
        .extracting(Skip::reason)
        .containsExactly(SkipReason.OVER_STATE_LIMITS);
  }

  @Test
  void anEndpointsAddressInSubsetsOfMorePortsThanTheLimitKeepsTheFirstAsOneSkipOfTheObject() {
    List<EndpointSubset> subsets = new ArrayList<>();
    for (int s = 0; s < 11; s++) {
      subsets.add(subset(s * 100, 100, "10.0.0.1", "pod-1"));
    }
    subsets.add(subset(0, 1_100, "10.0.0.2", OVER)); // one subset over, and a pod name

    Translation translation = EndpointsTranslator.translate(endpoints(subsets));

    assertThat(translation.endpoints())
        .allSatisfy(e -> assertThat(e.ports()).hasSize(TableLimits.MAX_PORTS));
    assertThat(translation.endpoints().get(1).pod()).isNull();
    assertThat(translation.skips())
        .singleElement()
        .satisfies(
            skip -> {
              assertThat(skip.object()).isEqualTo("Endpoints shop/web");
              assertThat(skip.resourceVersion()).isEqualTo("9");
              assertThat(skip.detail()).contains("3 cuts in all");
            });
  }

  @Test
  void aMergeWithinTheLimitsCutsAndSkipsNothing() {
    ObjectTranslation one =
        SliceTranslator.translateOne(
            slice("web-a", "IPv4", ports(0, 100), endpoint("10.0.0.1", "p")));
    ObjectTranslation two =
        SliceTranslator.translateOne(
            slice("web-b", "IPv4", ports(100, 100), endpoint("10.0.0.1", "p")));

    Translation merged = ServiceMerge.merge(List.of(one, two), ServiceTraffic.DEFAULT);

    assertThat(merged.skips()).isEmpty();
    assertThat(merged.endpoints().get(0).ports()).hasSize(200);
  }

  @Test
  void theTranslatorsOwnHintCapIsWithinTheTables() {
    assertThat(SliceTranslator.MAX_HINTS).isLessThanOrEqualTo(TableLimits.MAX_HINTS);
  }

  private static List<EndpointPort> ports(int from, int count) {
    return IntStream.range(from, from + count)
        .mapToObj(
            i ->
                new EndpointPortBuilder()
                    .withName(name(i))
                    .withPort(10_000 + i)
                    .withProtocol("TCP")
                    .build())
        .toList();
  }

  private static String name(int i) {
    return String.format("p%04d", i);
  }

  private static io.fabric8.kubernetes.api.model.discovery.v1.Endpoint endpoint(
      String ip, String pod) {
    return new EndpointBuilder()
        .withAddresses(ip)
        .withNodeName("node-a")
        .withZone("zone-a")
        .withTargetRef(new ObjectReferenceBuilder().withKind("Pod").withName(pod).build())
        .withNewConditions()
        .withReady(true)
        .withServing(true)
        .withTerminating(false)
        .endConditions()
        .build();
  }

  private static EndpointSlice slice(
      String name,
      String addressType,
      List<EndpointPort> ports,
      io.fabric8.kubernetes.api.model.discovery.v1.Endpoint... endpoints) {
    return new EndpointSliceBuilder()
        .withNewMetadata()
        .withNamespace("shop")
        .withName(name)
        .withResourceVersion("7")
        .addToLabels(SliceTranslator.SERVICE_NAME_LABEL, "web")
        .endMetadata()
        .withAddressType(addressType)
        .withPorts(ports)
        .withEndpoints(endpoints)
        .build();
  }

  private static EndpointSubset subset(int from, int count, String ip, String pod) {
    EndpointSubset subset = new EndpointSubset();
    subset.setPorts(
        IntStream.range(from, from + count)
            .mapToObj(
                i ->
                    new io.fabric8.kubernetes.api.model.EndpointPortBuilder()
                        .withName(name(i))
                        .withPort(10_000 + i)
                        .withProtocol("TCP")
                        .build())
            .toList());
    subset.setAddresses(
        List.of(
            new EndpointAddressBuilder()
                .withIp(ip)
                .withTargetRef(new ObjectReferenceBuilder().withKind("Pod").withName(pod).build())
                .build()));
    return subset;
  }

  private static Endpoints endpoints(List<EndpointSubset> subsets) {
    return new EndpointsBuilder()
        .withNewMetadata()
        .withNamespace("shop")
        .withName("web")
        .withResourceVersion("9")
        .endMetadata()
        .withSubsets(subsets)
        .build();
  }
}
