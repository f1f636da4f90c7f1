package dev.routesync.kube.translate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.tuple;

import dev.routesync.table.Endpoint;
import dev.routesync.table.Port;
import dev.routesync.table.ServiceKey;
import dev.routesync.testing.Slices;
import dev.routesync.testing.Slices.Conditions;
import dev.routesync.testing.Slices.Pod;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointConditions;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPort;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPortBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

class SliceTranslatorTest {

  private static final String NS = "shop";
  private static final String SERVICE = "checkout";
  private static final EndpointPort HTTP = port("http", 8080, "TCP");
  private static final Port HTTP_PORT = new Port("http", 8080, "TCP");

  // ---------------------------------------------------------------- readiness

  static Stream<Arguments> readinessCases() {
    return Stream.of(
        Arguments.of("ready=true", conditions(true, true, false), true),
        Arguments.of("ready=false", conditions(false, false, false), false),
        Arguments.of("ready=false but serving", conditions(false, true, false), false),
        Arguments.of("ready absent", conditions(null, null, null), true),
        Arguments.of("ready absent, serving=false", conditions(null, false, null), true),
        Arguments.of("conditions object absent", null, true),
        Arguments.of("terminating and serving", conditions(false, true, true), false),
        Arguments.of("terminating, not serving", conditions(false, false, true), false));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("readinessCases")
  void onlyReadyEndpointsArePublishedWhileAnyEndpointIsReady(
      String description, EndpointConditions conditions, boolean published) {
    var subject = endpoint("10.0.0.2");
    subject.setConditions(conditions);
    EndpointSlice slice = ipv4Slice("checkout-a", ready("10.0.0.1"), subject);

    Translation translation = SliceTranslator.translate(List.of(slice));

    assertThat(translation.skips()).isEmpty();
    assertThat(ips(translation))
        .as(description)
        .isEqualTo(published ? List.of("10.0.0.1", "10.0.0.2") : List.of("10.0.0.1"));
  }

  @Test
  void absentConditionsMeanReadyServingAndNotTerminating() {
    var subject = endpoint("10.0.0.1");
    subject.setConditions(null);

    Endpoint published = only(SliceTranslator.translate(List.of(ipv4Slice("checkout-a", subject))));

    assertThat(published.ready()).isTrue();
    assertThat(published.serving()).isTrue();
    assertThat(published.terminating()).isFalse();
  }

  @Test
  void notReadyEndpointsNeverAppear() {
    EndpointSlice slice =
        Slices.slice(
            NS,
            "checkout-a",
            SERVICE,
            true,
            8080,
            List.of(
                Pod.ready("p1", "10.0.0.1").with(Conditions.NOT_READY),
                Pod.ready("p2", "10.0.0.2").with(Conditions.NOT_READY)));

    Translation translation = SliceTranslator.translate(List.of(slice));

    assertThat(translation.endpoints()).isEmpty();
    assertThat(translation.skips()).isEmpty();
  }

  // ---------------------------------------------------------------- merging

  @Test
  void endpointsOfAllSlicesOfTheServiceAreMerged() {
    EndpointSlice a = ipv4Slice("checkout-a", ready("10.0.0.1"), ready("10.0.0.3"));
    EndpointSlice b = ipv4Slice("checkout-b", ready("10.0.0.2"));

    Translation translation = SliceTranslator.translate(List.of(a, b));

    assertThat(ips(translation)).containsExactly("10.0.0.1", "10.0.0.2", "10.0.0.3");
    assertThat(translation.skips()).isEmpty();
  }

  static Stream<Arguments> readyCopyInEitherSlice() {
    return Stream.of(
        Arguments.of("ready copy in the first slice", "checkout-a", "checkout-b"),
        Arguments.of("ready copy in the second slice", "checkout-b", "checkout-a"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("readyCopyInEitherSlice")
  void anIpInTwoSlicesIsPublishedOnceWithUnionedPortsAndTheReadyCopysAttributes(
      String description, String readySliceName, String staleSliceName) {
    var readyCopy = ready("10.0.0.5");
    readyCopy.setZone("zone-ready");
    readyCopy.setNodeName("node-ready");
    readyCopy.setTargetRef(podRef("pod-ready"));
    var staleCopy = endpoint("10.0.0.5");
    staleCopy.setConditions(conditions(false, false, false));
    staleCopy.setZone("zone-stale");
    staleCopy.setNodeName("node-stale");
    staleCopy.setTargetRef(podRef("pod-stale"));
    EndpointSlice readySlice =
        slice(readySliceName, "IPv4", List.of(port("metrics", 9090, "TCP")), readyCopy);
    EndpointSlice staleSlice = slice(staleSliceName, "IPv4", List.of(HTTP), staleCopy);

    for (List<EndpointSlice> order :
        List.of(List.of(readySlice, staleSlice), List.of(staleSlice, readySlice))) {
      Endpoint published = only(SliceTranslator.translate(order));

      assertThat(published.ip()).isEqualTo("10.0.0.5");
      assertThat(published.ports()).containsExactly(HTTP_PORT, new Port("metrics", 9090, "TCP"));
      assertThat(published.ready()).as(description).isTrue();
      assertThat(published.zone()).isEqualTo("zone-ready");
      assertThat(published.node()).isEqualTo("node-ready");
      assertThat(published.pod()).isEqualTo("pod-ready");
    }
  }

  @Test
  void anIpListedTwiceWithTheSamePortsKeepsOnePortList() {
    EndpointSlice a = ipv4Slice("checkout-a", ready("10.0.0.5"));
    EndpointSlice b = ipv4Slice("checkout-b", ready("10.0.0.5"));

    Endpoint published = only(SliceTranslator.translate(List.of(a, b)));

    assertThat(published.ports()).containsExactly(HTTP_PORT);
  }

  @Test
  void endpointsAreSortedByIpWhateverTheInputOrder() {
    EndpointSlice a = ipv4Slice("checkout-a", ready("10.0.0.7"), ready("10.0.0.2"));
    EndpointSlice b = ipv4Slice("checkout-b", ready("10.0.0.4"), ready("10.0.0.1"));
    EndpointSlice c = ipv4Slice("checkout-c", ready("10.0.0.3"));
    List<String> expected = List.of("10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4", "10.0.0.7");

    for (List<EndpointSlice> order :
        List.of(List.of(a, b, c), List.of(c, b, a), List.of(b, c, a))) {
      Translation translation = SliceTranslator.translate(order);

      assertThat(ips(translation)).isEqualTo(expected);
    }
    assertThat(SliceTranslator.translate(List.of(a, b, c)))
        .isEqualTo(SliceTranslator.translate(List.of(c, a, b)));
  }

  @Test
  void aNamedPortResolvingToDifferentNumbersInTwoSlicesStaysPerEndpoint() {
    EndpointSlice a =
        slice("checkout-a", "IPv4", List.of(port("http", 8080, "TCP")), ready("10.0.0.1"));
    EndpointSlice b =
        slice("checkout-b", "IPv4", List.of(port("http", 9090, "TCP")), ready("10.0.0.2"));

    Translation translation = SliceTranslator.translate(List.of(a, b));

    assertThat(translation.endpoints())
        .extracting(Endpoint::ip, Endpoint::ports)
        .containsExactly(
            tuple("10.0.0.1", List.of(new Port("http", 8080, "TCP"))),
            tuple("10.0.0.2", List.of(new Port("http", 9090, "TCP"))));
  }

  // ---------------------------------------------------------------- terminating fallback

  static Stream<Arguments> terminatingCases() {
    return Stream.of(
        Arguments.of(
            "no ready endpoint: serving+terminating ones are published",
            List.of(
                pod("10.0.0.1", Conditions.TERMINATING_SERVING),
                pod("10.0.0.2", Conditions.NOT_READY),
                pod("10.0.0.3", Conditions.TERMINATING_SERVING),
                pod("10.0.0.4", Conditions.TERMINATING)),
            List.of("10.0.0.1", "10.0.0.3"),
            true),
        Arguments.of(
            "terminating but not serving: nothing",
            List.of(
                pod("10.0.0.1", Conditions.TERMINATING), pod("10.0.0.2", Conditions.TERMINATING)),
            List.of(),
            true),
        Arguments.of(
            "a ready endpoint exists: terminating ones are left out",
            List.of(
                pod("10.0.0.1", Conditions.TERMINATING_SERVING),
                pod("10.0.0.2", Conditions.READY),
                pod("10.0.0.3", Conditions.TERMINATING_SERVING)),
            List.of("10.0.0.2"),
            false));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("terminatingCases")
  void whenNoEndpointIsReadyServingTerminatingOnesArePublishedFlaggedTerminating(
      String description, List<Pod> pods, List<String> expectedIps, boolean terminating) {
    EndpointSlice slice = Slices.slice(NS, "checkout-a", SERVICE, true, 8080, pods);

    Translation translation = SliceTranslator.translate(List.of(slice));

    assertThat(ips(translation)).as(description).isEqualTo(expectedIps);
    assertThat(translation.endpoints())
        .allSatisfy(
            endpoint -> {
              assertThat(endpoint.terminating()).isEqualTo(terminating);
              assertThat(endpoint.ready()).isEqualTo(!terminating);
              assertThat(endpoint.serving()).isTrue();
            });
  }

  @Test
  void aReadyEndpointInAnotherSliceSuppressesTheTerminatingFallback() {
    EndpointSlice draining =
        Slices.slice(
            NS,
            "checkout-a",
            SERVICE,
            true,
            8080,
            List.of(pod("10.0.0.1", Conditions.TERMINATING_SERVING)));
    EndpointSlice fresh =
        Slices.slice(
            NS, "checkout-b", SERVICE, true, 8080, List.of(pod("10.0.0.2", Conditions.READY)));

    assertThat(ips(SliceTranslator.translate(List.of(draining, fresh))))
        .containsExactly("10.0.0.2");
    assertThat(ips(SliceTranslator.translate(List.of(draining)))).containsExactly("10.0.0.1");
  }

  // ---------------------------------------------------------------- address types

  @Test
  void ipv6SlicesArePublished() {
    EndpointSlice slice =
        slice("checkout-v6", "IPv6", List.of(HTTP), ready("fd00::2"), ready("2001:db8::1"));

    Translation translation = SliceTranslator.translate(List.of(slice));

    assertThat(ips(translation)).containsExactly("2001:db8::1", "fd00::2");
    assertThat(translation.skips()).isEmpty();
  }

  @Test
  void ipv4AndIpv6SlicesOfOneServiceAreMerged() {
    EndpointSlice v4 = ipv4Slice("checkout-v4", ready("10.0.0.1"));
    EndpointSlice v6 = slice("checkout-v6", "IPv6", List.of(HTTP), ready("fd00::1"));

    assertThat(ips(SliceTranslator.translate(List.of(v6, v4))))
        .containsExactlyInAnyOrder("10.0.0.1", "fd00::1");
  }

  @Test
  void fqdnSlicesAreSkippedAndCounted() {
    EndpointSlice fqdn = slice("checkout-fqdn", "FQDN", List.of(HTTP), ready("db.example.com"));
    EndpointSlice v4 = ipv4Slice("checkout-v4", ready("10.0.0.1"));

    Translation translation = SliceTranslator.translate(List.of(fqdn, v4));

    assertThat(ips(translation)).containsExactly("10.0.0.1");
    assertThat(translation.skips())
        .extracting(Skip::reason, Skip::object)
        .containsExactly(tuple(SkipReason.FQDN, "EndpointSlice shop/checkout-fqdn"));
  }

  @ParameterizedTest
  @NullAndEmptySource
  @ValueSource(strings = {"IPv5", "ipv4", "IPV6", "fqdn"})
  void slicesOfAnUnknownAddressTypeAreSkipped(String addressType) {
    EndpointSlice odd = slice("checkout-odd", addressType, List.of(HTTP), ready("10.0.0.9"));
    EndpointSlice v4 = ipv4Slice("checkout-v4", ready("10.0.0.1"));

    Translation translation = SliceTranslator.translate(List.of(odd, v4));

    assertThat(ips(translation)).containsExactly("10.0.0.1");
    assertThat(translation.skips())
        .extracting(Skip::reason, Skip::object)
        .containsExactly(tuple(SkipReason.UNKNOWN_ADDRESS_TYPE, "EndpointSlice shop/checkout-odd"));
  }

  // ---------------------------------------------------------------- invalid input

  static Stream<Arguments> invalidAddresses() {
    return Stream.of(
        Arguments.of("octet over 255", "IPv4", Arrays.asList("10.0.0.300")),
        Arguments.of("not an address", "IPv4", Arrays.asList("abc")),
        Arguments.of("hostname", "IPv4", Arrays.asList("checkout.shop.svc")),
        Arguments.of("empty address list", "IPv4", List.of()),
        Arguments.of("null address list", "IPv4", null),
        Arguments.of("null first address", "IPv4", Arrays.asList((String) null)),
        Arguments.of("empty string", "IPv4", Arrays.asList("")),
        Arguments.of("IPv6 text in an IPv4 slice", "IPv4", Arrays.asList("fd00::1")),
        Arguments.of("leading zero", "IPv4", Arrays.asList("10.01.0.1")),
        Arguments.of("surrounding space", "IPv4", Arrays.asList(" 10.0.0.9")),
        Arguments.of("CIDR", "IPv4", Arrays.asList("10.0.0.9/32")),
        Arguments.of("IPv4 text in an IPv6 slice", "IPv6", Arrays.asList("10.0.0.9")),
        Arguments.of("bracketed IPv6", "IPv6", Arrays.asList("[fd00::9]")),
        Arguments.of("IPv6 with zone", "IPv6", Arrays.asList("fe80::9%eth0")),
        Arguments.of("two double colons", "IPv6", Arrays.asList("fd00::9::1")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidAddresses")
  void anEndpointWithAnInvalidIpIsSkippedAndTheRestOfTheSliceSurvives(
      String description, String addressType, List<String> addresses) {
    boolean v6 = addressType.equals("IPv6");
    String first = v6 ? "fd00::1" : "10.0.0.1";
    String last = v6 ? "fd00::2" : "10.0.0.2";
    var bad = endpoint("10.0.0.5");
    bad.setAddresses(addresses);
    EndpointSlice slice =
        slice("checkout-a", addressType, List.of(HTTP), ready(first), bad, ready(last));

    Translation translation = SliceTranslator.translate(List.of(slice));

    assertThat(ips(translation)).as(description).containsExactly(first, last);
    assertThat(translation.skips())
        .extracting(Skip::reason, Skip::object)
        .containsExactly(tuple(SkipReason.INVALID_IP, "EndpointSlice shop/checkout-a"));
  }

  @Test
  void onlyTheFirstAddressOfAnEndpointIsUsed() {
    var endpoint = ready("10.0.0.1");
    endpoint.setAddresses(List.of("10.0.0.1", "10.0.0.2"));

    Translation translation = SliceTranslator.translate(List.of(ipv4Slice("checkout-a", endpoint)));

    assertThat(ips(translation)).containsExactly("10.0.0.1");
  }

  static Stream<Arguments> invalidPorts() {
    return Stream.of(
        Arguments.of("null number", Arrays.asList(port("http", null, "TCP"))),
        Arguments.of("port 0", Arrays.asList(port("http", 0, "TCP"))),
        Arguments.of("port 70000", Arrays.asList(port("http", 70000, "TCP"))),
        Arguments.of("port 65536", Arrays.asList(port("http", 65536, "TCP"))),
        Arguments.of("negative port", Arrays.asList(port("http", -1, "TCP"))),
        Arguments.of("null port entry", Arrays.asList((EndpointPort) null)),
        Arguments.of(
            "one bad port among good ones",
            Arrays.asList(port("http", 8080, "TCP"), port("admin", 0, "TCP"))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidPorts")
  void aSliceWithAnInvalidPortIsSkippedWholeWhileOtherSlicesSurvive(
      String description, List<EndpointPort> ports) {
    EndpointSlice bad = slice("checkout-bad", "IPv4", ports, ready("10.0.0.8"), ready("10.0.0.9"));
    EndpointSlice good = ipv4Slice("checkout-good", ready("10.0.0.1"));

    Translation translation = SliceTranslator.translate(List.of(bad, good));

    assertThat(ips(translation)).as(description).containsExactly("10.0.0.1");
    assertThat(translation.skips())
        .extracting(Skip::reason, Skip::object)
        .containsExactly(tuple(SkipReason.INVALID_PORT, "EndpointSlice shop/checkout-bad"));
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 80, 65535})
  void portsAtTheEdgesOfTheRangeAreAccepted(int number) {
    EndpointSlice slice =
        slice("checkout-a", "IPv4", List.of(port("p", number, "TCP")), ready("10.0.0.1"));

    assertThat(only(SliceTranslator.translate(List.of(slice))).ports())
        .containsExactly(new Port("p", number, "TCP"));
  }

  static Stream<Arguments> slicesWithoutService() {
    return Stream.of(
        Arguments.of("no labels", meta(NS, "checkout-a", null)),
        Arguments.of("no service label", meta(NS, "checkout-a", Map.of("app", SERVICE))),
        Arguments.of(
            "blank service label",
            meta(NS, "checkout-a", Map.of(SliceTranslator.SERVICE_NAME_LABEL, " "))),
        Arguments.of(
            "no namespace",
            meta(null, "checkout-a", Map.of(SliceTranslator.SERVICE_NAME_LABEL, SERVICE))),
        Arguments.of("no metadata", null));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("slicesWithoutService")
  void aSliceWithoutServiceNameLabelIsSkipped(String description, ObjectMeta metadata) {
    EndpointSlice orphan = ipv4Slice("ignored", ready("10.0.0.9"));
    orphan.setMetadata(metadata);
    EndpointSlice good = ipv4Slice("checkout-good", ready("10.0.0.1"));

    Translation translation = SliceTranslator.translate(List.of(orphan, good));

    assertThat(SliceTranslator.serviceKeyOf(orphan)).as(description).isEmpty();
    assertThat(ips(translation)).containsExactly("10.0.0.1");
    assertThat(translation.skips())
        .extracting(Skip::reason)
        .containsExactly(SkipReason.NO_SERVICE_LABEL);
  }

  @Test
  void serviceKeyIsTheNamespaceAndTheServiceNameLabel() {
    EndpointSlice slice = ipv4Slice("checkout-x7k2p", ready("10.0.0.1"));

    assertThat(SliceTranslator.serviceKeyOf(slice)).contains(new ServiceKey(NS, SERVICE));
    assertThat(SliceTranslator.serviceKeyOf(null)).isEmpty();
  }

  // ---------------------------------------------------------------- attributes

  @Test
  void missingPortNameBecomesEmptyAndMissingProtocolBecomesTcp() {
    EndpointSlice slice =
        slice(
            "checkout-a",
            "IPv4",
            List.of(port("web", 8080, "TCP"), port(null, 80, null), port("dns", 53, "UDP")),
            ready("10.0.0.1"));

    Endpoint published = only(SliceTranslator.translate(List.of(slice)));

    assertThat(published.ports())
        .containsExactly(
            new Port("", 80, "TCP"), new Port("dns", 53, "UDP"), new Port("web", 8080, "TCP"));
  }

  @Test
  void zoneNodeAndPodAreCarried() {
    var endpoint = ready("10.0.0.1");
    endpoint.setZone("eu-west-1a");
    endpoint.setNodeName("node-7");
    endpoint.setTargetRef(podRef("checkout-5d9f-abc"));

    Endpoint published =
        only(SliceTranslator.translate(List.of(ipv4Slice("checkout-a", endpoint))));

    assertThat(published)
        .isEqualTo(
            new Endpoint(
                "10.0.0.1",
                List.of(HTTP_PORT),
                "eu-west-1a",
                "node-7",
                "checkout-5d9f-abc",
                true,
                true,
                false));
  }

  @Test
  void hintsForZonesAndNodesAreCarriedSortedAndDistinct() {
    var endpoint = ready("10.0.0.1");
    endpoint.setZone("zone-b");
    endpoint.setHints(
        new io.fabric8.kubernetes.api.model.discovery.v1.EndpointHintsBuilder()
            .addNewForZone()
            .withName("zone-b")
            .endForZone()
            .addNewForZone()
            .withName("zone-a")
            .endForZone()
            .addNewForZone()
            .withName("zone-b")
            .endForZone()
            .addNewForNode()
            .withName("node-7")
            .endForNode()
            .build());

    Endpoint published =
        only(SliceTranslator.translate(List.of(ipv4Slice("checkout-a", endpoint))));

    assertThat(published.zone()).isEqualTo("zone-b");
    assertThat(published.hints().forZones()).containsExactly("zone-a", "zone-b");
    assertThat(published.hints().forNodes()).containsExactly("node-7");
  }

  @Test
  void absentOrEmptyHintsShareTheEmptyInstanceAndAreCappedWhenLong() {
    var none = ready("10.0.0.1");
    var empty = ready("10.0.0.2");
    empty.setHints(new io.fabric8.kubernetes.api.model.discovery.v1.EndpointHints());
    var many = ready("10.0.0.3");
    var builder = new io.fabric8.kubernetes.api.model.discovery.v1.EndpointHintsBuilder();
    for (int i = 0; i < 100; i++) {
      builder.addNewForZone().withName("z" + i).endForZone();
    }
    many.setHints(builder.build());

    List<Endpoint> published =
        SliceTranslator.translate(List.of(ipv4Slice("checkout-a", none, empty, many))).endpoints();

    assertThat(published.get(0).hints()).isSameAs(dev.routesync.table.EndpointHints.NONE);
    assertThat(published.get(1).hints()).isSameAs(dev.routesync.table.EndpointHints.NONE);
    assertThat(published.get(2).hints().forZones()).hasSize(SliceTranslator.MAX_HINTS);
  }

  @Test
  void absentZoneNodeAndTargetAreNull() {
    var endpoint = ready("10.0.0.1");
    endpoint.setZone(null);
    endpoint.setNodeName(null);
    endpoint.setTargetRef(null);

    Endpoint published =
        only(SliceTranslator.translate(List.of(ipv4Slice("checkout-a", endpoint))));

    assertThat(published.zone()).isNull();
    assertThat(published.node()).isNull();
    assertThat(published.pod()).isNull();
  }

  @ParameterizedTest
  @NullAndEmptySource
  @ValueSource(strings = {"Node", "Service", "pod"})
  void aTargetThatIsNotAPodGivesNoPodName(String kind) {
    var endpoint = ready("10.0.0.1");
    endpoint.setTargetRef(new ObjectReferenceBuilder().withKind(kind).withName("x").build());

    Endpoint published =
        only(SliceTranslator.translate(List.of(ipv4Slice("checkout-a", endpoint))));

    assertThat(published.pod()).isNull();
  }

  // ---------------------------------------------------------------- garbage

  static Stream<Arguments> garbage() {
    return Stream.of(
        Arguments.of("no slices", (Consumer<List<EndpointSlice>>) slices -> slices.clear()),
        Arguments.of("a null slice", (Consumer<List<EndpointSlice>>) slices -> slices.add(null)),
        Arguments.of(
            "null endpoint entries",
            (Consumer<List<EndpointSlice>>)
                slices -> slices.get(0).getEndpoints().addAll(Arrays.asList(null, null))),
        Arguments.of(
            "null endpoint list",
            (Consumer<List<EndpointSlice>>) slices -> slices.get(0).setEndpoints(null)),
        Arguments.of(
            "null conditions and addresses",
            (Consumer<List<EndpointSlice>>)
                slices ->
                    slices
                        .get(0)
                        .getEndpoints()
                        .forEach(
                            e -> {
                              e.setConditions(null);
                              e.setAddresses(null);
                            })),
        Arguments.of(
            "null address type",
            (Consumer<List<EndpointSlice>>) slices -> slices.get(0).setAddressType(null)),
        Arguments.of(
            "null port list",
            (Consumer<List<EndpointSlice>>) slices -> slices.get(0).setPorts(null)),
        Arguments.of(
            "empty metadata",
            (Consumer<List<EndpointSlice>>) slices -> slices.get(0).setMetadata(new ObjectMeta())),
        Arguments.of(
            "everything null",
            (Consumer<List<EndpointSlice>>) slices -> slices.add(new EndpointSlice())),
        Arguments.of(
            "null label map",
            (Consumer<List<EndpointSlice>>) slices -> slices.get(0).getMetadata().setLabels(null)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("garbage")
  void translateNeverThrowsOnGarbage(String description, Consumer<List<EndpointSlice>> damage) {
    List<EndpointSlice> slices = new ArrayList<>();
    slices.add(ipv4Slice("checkout-a", ready("10.0.0.1"), ready("10.0.0.2")));
    slices.add(ipv4Slice("checkout-b", ready("10.0.0.3")));
    damage.accept(slices);

    assertThatCode(() -> SliceTranslator.translate(slices))
        .as(description)
        .doesNotThrowAnyException();
    Translation translation = SliceTranslator.translate(slices);
    assertThat(translation.endpoints()).extracting(Endpoint::ip).doesNotHaveDuplicates();
  }

  @Test
  void noSlicesMeansNoEndpointsAndNoSkips() {
    Translation translation = SliceTranslator.translate(Collections.emptyList());

    assertThat(translation.endpoints()).isEmpty();
    assertThat(translation.skips()).isEmpty();
  }

  @Test
  void nullEndpointEntriesAreIgnoredWithoutASkip() {
    EndpointSlice slice = ipv4Slice("checkout-a", ready("10.0.0.1"));
    slice.getEndpoints().add(null);

    Translation translation = SliceTranslator.translate(List.of(slice));

    assertThat(ips(translation)).containsExactly("10.0.0.1");
    assertThat(translation.skips()).isEmpty();
  }

  // ---------------------------------------------------------------- helpers

  private static Pod pod(String ip, Conditions conditions) {
    return new Pod("pod-" + ip, ip, "node-a", "zone-a", conditions);
  }

  private static EndpointConditions conditions(
      Boolean ready, Boolean serving, Boolean terminating) {
    EndpointConditions conditions = new EndpointConditions();
    conditions.setReady(ready);
    conditions.setServing(serving);
    conditions.setTerminating(terminating);
    return conditions;
  }

  private static io.fabric8.kubernetes.api.model.discovery.v1.Endpoint endpoint(String ip) {
    return new EndpointBuilder()
        .withAddresses(ip)
        .withNodeName("node-a")
        .withZone("zone-a")
        .build();
  }

  private static io.fabric8.kubernetes.api.model.discovery.v1.Endpoint ready(String ip) {
    var endpoint = endpoint(ip);
    endpoint.setConditions(conditions(true, true, false));
    endpoint.setTargetRef(podRef("pod-" + ip));
    return endpoint;
  }

  private static io.fabric8.kubernetes.api.model.ObjectReference podRef(String name) {
    return new ObjectReferenceBuilder().withKind("Pod").withNamespace(NS).withName(name).build();
  }

  private static EndpointPort port(String name, Integer number, String protocol) {
    EndpointPort port = new EndpointPortBuilder().withName(name).withProtocol(protocol).build();
    port.setPort(number);
    return port;
  }

  private static ObjectMeta meta(String namespace, String name, Map<String, String> labels) {
    return new ObjectMetaBuilder()
        .withNamespace(namespace)
        .withName(name)
        .withLabels(labels == null ? null : new HashMap<>(labels))
        .build();
  }

  private static EndpointSlice ipv4Slice(
      String name, io.fabric8.kubernetes.api.model.discovery.v1.Endpoint... endpoints) {
    return slice(name, "IPv4", List.of(HTTP), endpoints);
  }

  private static EndpointSlice slice(
      String name,
      String addressType,
      List<EndpointPort> ports,
      io.fabric8.kubernetes.api.model.discovery.v1.Endpoint... endpoints) {
    EndpointSlice slice =
        new EndpointSliceBuilder()
            .withMetadata(meta(NS, name, Map.of(SliceTranslator.SERVICE_NAME_LABEL, SERVICE)))
            .withAddressType(addressType)
            .build();
    // Plain setters, so null entries and null lists reach the translator unchanged.
    slice.setPorts(new ArrayList<>(ports));
    slice.setEndpoints(new ArrayList<>(Arrays.asList(endpoints)));
    return slice;
  }

  private static List<String> ips(Translation translation) {
    return translation.endpoints().stream().map(Endpoint::ip).toList();
  }

  private static Endpoint only(Translation translation) {
    assertThat(translation.endpoints()).hasSize(1);
    return translation.endpoints().get(0);
  }

  @Test
  void theSameIpv6AddressWrittenTwoWaysIsPublishedOnce() {
    EndpointSlice upper =
        new EndpointSliceBuilder(
                Slices.slice(NS, "a", SERVICE, true, 8080, List.of(Pod.ready("p1", "2001:DB8::1"))))
            .withAddressType("IPv6")
            .build();
    EndpointSlice expanded =
        new EndpointSliceBuilder(
                Slices.slice(
                    NS, "b", SERVICE, true, 8080, List.of(Pod.ready("p1", "2001:db8:0:0:0:0:0:1"))))
            .withAddressType("IPv6")
            .build();
    Translation translation = SliceTranslator.translate(List.of(upper, expanded));
    assertThat(translation.endpoints()).extracting(Endpoint::ip).containsExactly("2001:db8::1");
  }

  @Test
  void aDrainingCopyOfAnIpIsNotHiddenByAStaleNotReadyCopy() {
    EndpointSlice stale =
        Slices.slice(
            NS,
            "a-first",
            SERVICE,
            true,
            8080,
            List.of(new Pod("p1", "10.0.0.1", "n", "z", Conditions.NOT_READY)));
    EndpointSlice draining =
        Slices.slice(
            NS,
            "b-second",
            SERVICE,
            true,
            8080,
            List.of(new Pod("p1", "10.0.0.1", "n", "z", Conditions.TERMINATING_SERVING)));
    Translation translation = SliceTranslator.translate(List.of(stale, draining));
    assertThat(translation.endpoints())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.serving()).isTrue();
              assertThat(e.terminating()).isTrue();
            });
  }
}
