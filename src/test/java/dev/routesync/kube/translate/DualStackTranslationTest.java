package dev.routesync.kube.translate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.table.Endpoint;
import dev.routesync.table.Port;
import dev.routesync.table.ServiceTraffic;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPort;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPortBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A dual-stack Service's pods, as the EndpointSlice controller lists them (one slice per address
 * family, each endpoint with {@code nodeName}, {@code zone} and a {@code targetRef} to its pod),
 * become one endpoint per pod whose addresses follow the Service's {@code ipFamilies} order.
 */
class DualStackTranslationTest {

  private static final EndpointPort HTTP =
      new EndpointPortBuilder().withName("http").withPort(8080).withProtocol("TCP").build();

  /** What one endpoint of a slice says of its pod. */
  private record Listed(
      String pod, String ip, boolean ready, boolean serving, boolean terminating) {
    static Listed ready(String pod, String ip) {
      return new Listed(pod, ip, true, true, false);
    }
  }

  @Test
  void aPodInBothFamiliesSlicesIsOneEndpointWithItsIpv4AddressFirstByDefault() {
    List<EndpointSlice> slices =
        List.of(
            slice("web-v4", "IPv4", List.of(HTTP), Listed.ready("web-1", "10.0.0.1")),
            slice("web-v6", "IPv6", List.of(HTTP), Listed.ready("web-1", "fd00::1")));

    Translation translation = SliceTranslator.translate(slices);

    assertThat(translation.endpoints()).hasSize(1);
    Endpoint web1 = translation.endpoints().get(0);
    assertThat(web1.ip()).isEqualTo("10.0.0.1");
    assertThat(web1.additionalAddresses()).containsExactly("fd00::1");
    assertThat(web1.addresses()).containsExactly("10.0.0.1", "fd00::1");
    assertThat(web1.pod()).isEqualTo("web-1");
    assertThat(web1.node()).isEqualTo("node-a");
    assertThat(web1.zone()).isEqualTo("zone-a");
    assertThat(web1.ports()).containsExactly(new Port("http", 8080, "TCP"));
    assertThat(web1.ready()).isTrue();
  }

  @Test
  void theServicesFirstFamilyIsThePrimaryAddress() {
    List<ObjectTranslation> objects =
        List.of(
            SliceTranslator.translateOne(
                slice(
                    "web-v4",
                    "IPv4",
                    List.of(HTTP),
                    Listed.ready("web-1", "10.0.0.1"),
                    Listed.ready("web-2", "10.0.0.2"))),
            SliceTranslator.translateOne(
                slice(
                    "web-v6",
                    "IPv6",
                    List.of(HTTP),
                    Listed.ready("web-1", "fd00::1"),
                    Listed.ready("web-2", "fd00::2"))));

    List<Endpoint> ipv6First =
        ServiceMerge.merge(objects, ServiceTraffic.of(null, false, /* ipv6Primary= */ true))
            .endpoints();
    List<Endpoint> ipv4First = ServiceMerge.merge(objects, ServiceTraffic.DEFAULT).endpoints();

    assertThat(ipv6First)
        .extracting(Endpoint::addresses)
        .containsExactly(List.of("fd00::1", "10.0.0.1"), List.of("fd00::2", "10.0.0.2"));
    assertThat(ipv4First)
        .extracting(Endpoint::addresses)
        .containsExactly(List.of("10.0.0.1", "fd00::1"), List.of("10.0.0.2", "fd00::2"));
  }

  @Test
  void whenTheFamiliesDisagreeThePairTakesTheConditionsThatRouteLess() {
    // The IPv6 slice was rewritten first: web-1 has begun terminating (still serving); the IPv4
    // slice still says ready. web-2 is ready in both, so the pair of web-1 is left out.
    List<EndpointSlice> slices =
        List.of(
            slice(
                "web-v4",
                "IPv4",
                List.of(HTTP),
                Listed.ready("web-1", "10.0.0.1"),
                Listed.ready("web-2", "10.0.0.2")),
            slice(
                "web-v6",
                "IPv6",
                List.of(HTTP),
                new Listed("web-1", "fd00::1", false, true, true),
                Listed.ready("web-2", "fd00::2")));

    assertThat(SliceTranslator.translate(slices).endpoints())
        .extracting(Endpoint::pod)
        .containsExactly("web-2");

    // Alone, web-1 is the serving terminating fallback, flagged so.
    List<Endpoint> alone =
        SliceTranslator.translate(
                List.of(
                    slice("web-v4", "IPv4", List.of(HTTP), Listed.ready("web-1", "10.0.0.1")),
                    slice(
                        "web-v6",
                        "IPv6",
                        List.of(HTTP),
                        new Listed("web-1", "fd00::1", false, true, true))))
            .endpoints();
    assertThat(alone).hasSize(1);
    assertThat(alone.get(0).addresses()).containsExactly("10.0.0.1", "fd00::1");
    assertThat(alone.get(0).ready()).isFalse();
    assertThat(alone.get(0).serving()).isTrue();
    assertThat(alone.get(0).terminating()).isTrue();

    // A pod ready in one family only (its second slice not yet rewritten) is not ready.
    assertThat(
            SliceTranslator.translate(
                    List.of(
                        slice("web-v4", "IPv4", List.of(HTTP), Listed.ready("web-1", "10.0.0.1")),
                        slice(
                            "web-v6",
                            "IPv6",
                            List.of(HTTP),
                            new Listed("web-1", "fd00::1", false, false, false))))
                .endpoints())
        .isEmpty();
  }

  @Test
  void endpointsWithoutAPodTargetAreNeverPaired() {
    List<EndpointSlice> slices =
        List.of(
            slice("web-v4", "IPv4", List.of(HTTP), Listed.ready(null, "10.0.0.1")),
            slice("web-v6", "IPv6", List.of(HTTP), Listed.ready(null, "fd00::1")));

    List<Endpoint> endpoints = SliceTranslator.translate(slices).endpoints();

    assertThat(endpoints).extracting(Endpoint::ip).containsExactly("10.0.0.1", "fd00::1");
    assertThat(endpoints).allSatisfy(e -> assertThat(e.additionalAddresses()).isEmpty());
  }

  @Test
  void aPodNamedTwiceInOneFamilyKeepsItsEndpointsApart() {
    // A StatefulSet pod recreated under the same name while the IPv4 slice still lists its
    // predecessor: which IPv4 address goes with the IPv6 one cannot be told.
    List<EndpointSlice> slices =
        List.of(
            slice(
                "db-v4",
                "IPv4",
                List.of(HTTP),
                Listed.ready("db-0", "10.0.0.1"),
                Listed.ready("db-0", "10.0.0.7")),
            slice("db-v6", "IPv6", List.of(HTTP), Listed.ready("db-0", "fd00::7")),
            slice("db-v6b", "IPv6", List.of(HTTP), Listed.ready("db-1", "fd00::8")),
            slice("db-v4b", "IPv4", List.of(HTTP), Listed.ready("db-1", "10.0.0.8")));

    List<Endpoint> endpoints = SliceTranslator.translate(slices).endpoints();

    assertThat(endpoints)
        .extracting(Endpoint::addresses)
        .containsExactly(
            List.of("10.0.0.1"),
            List.of("10.0.0.7"),
            List.of("10.0.0.8", "fd00::8"),
            List.of("fd00::7"));
  }

  @Test
  void thePairServesThePortsOfBothCopies() {
    EndpointPort metrics =
        new EndpointPortBuilder().withName("metrics").withPort(9090).withProtocol("TCP").build();
    List<EndpointSlice> slices =
        List.of(
            slice("web-v4", "IPv4", List.of(HTTP, metrics), Listed.ready("web-1", "10.0.0.1")),
            slice("web-v6", "IPv6", List.of(HTTP), Listed.ready("web-1", "fd00::1")));

    Endpoint web1 = SliceTranslator.translate(slices).endpoints().get(0);

    assertThat(web1.ports())
        .containsExactly(new Port("http", 8080, "TCP"), new Port("metrics", 9090, "TCP"));
  }

  @Test
  void aSingleStackServiceIsTranslatedAsBefore() {
    List<EndpointSlice> slices =
        List.of(
            slice("web-a", "IPv4", List.of(HTTP), Listed.ready("web-1", "10.0.0.1")),
            slice("web-b", "IPv4", List.of(HTTP), Listed.ready("web-2", "10.0.0.2")));

    List<Endpoint> endpoints = SliceTranslator.translate(slices).endpoints();

    assertThat(endpoints).extracting(Endpoint::ip).containsExactly("10.0.0.1", "10.0.0.2");
    assertThat(endpoints).allSatisfy(e -> assertThat(e.additionalAddresses()).isEmpty());
  }

  private static EndpointSlice slice(
      String name, String addressType, List<EndpointPort> ports, Listed... listed) {
    List<io.fabric8.kubernetes.api.model.discovery.v1.Endpoint> endpoints = new ArrayList<>();
    for (Listed one : listed) {
      EndpointBuilder endpoint =
          new EndpointBuilder()
              .withAddresses(one.ip())
              .withNodeName("node-a")
              .withZone("zone-a")
              .withNewConditions()
              .withReady(one.ready())
              .withServing(one.serving())
              .withTerminating(one.terminating())
              .endConditions();
      if (one.pod() != null) {
        endpoint.withTargetRef(
            new ObjectReferenceBuilder()
                .withKind("Pod")
                .withNamespace("shop")
                .withName(one.pod())
                .withUid("uid-" + one.pod())
                .build());
      }
      endpoints.add(endpoint.build());
    }
    return new EndpointSliceBuilder()
        .withNewMetadata()
        .withNamespace("shop")
        .withName(name)
        .addToLabels(SliceTranslator.SERVICE_NAME_LABEL, "web")
        .endMetadata()
        .withAddressType(addressType)
        .withPorts(ports)
        .withEndpoints(endpoints)
        .build();
  }
}
