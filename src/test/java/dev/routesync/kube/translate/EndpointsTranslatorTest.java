package dev.routesync.kube.translate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.tuple;

import dev.routesync.table.Endpoint;
import dev.routesync.table.Port;
import dev.routesync.table.ServiceKey;
import io.fabric8.kubernetes.api.model.EndpointAddress;
import io.fabric8.kubernetes.api.model.EndpointAddressBuilder;
import io.fabric8.kubernetes.api.model.EndpointPort;
import io.fabric8.kubernetes.api.model.EndpointSubset;
import io.fabric8.kubernetes.api.model.Endpoints;
import io.fabric8.kubernetes.api.model.EndpointsBuilder;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class EndpointsTranslatorTest {

  private static final String NS = "shop";
  private static final String SERVICE = "checkout";
  private static final EndpointPort HTTP = port("http", 8080, "TCP");
  private static final Port HTTP_PORT = new Port("http", 8080, "TCP");

  @Test
  void onlyAddressesAreRoutableNeverNotReadyAddresses() {
    EndpointSubset subset = subset(List.of(HTTP), address("10.0.0.1"), address("10.0.0.2"));
    subset.setNotReadyAddresses(List.of(address("10.0.0.3"), address("10.0.0.4")));

    Translation translation = EndpointsTranslator.translate(endpoints(subset));

    assertThat(ips(translation)).containsExactly("10.0.0.1", "10.0.0.2");
    assertThat(translation.skips()).isEmpty();
  }

  @Test
  void aSubsetWithOnlyNotReadyAddressesPublishesNothing() {
    EndpointSubset subset = subset(List.of(HTTP));
    subset.setNotReadyAddresses(List.of(address("10.0.0.3")));

    Translation translation = EndpointsTranslator.translate(endpoints(subset));

    assertThat(translation.endpoints()).isEmpty();
  }

  @Test
  void subsetsWithDifferentPortsKeepTheirOwnPorts() {
    EndpointSubset web = subset(List.of(HTTP), address("10.0.0.1"));
    EndpointSubset grpc =
        subset(
            List.of(port("grpc", 9090, "TCP"), port("dns", 53, "UDP")),
            address("10.0.0.2"),
            address("10.0.0.3"));

    Translation translation = EndpointsTranslator.translate(endpoints(web, grpc));

    List<Port> grpcPorts = List.of(new Port("dns", 53, "UDP"), new Port("grpc", 9090, "TCP"));
    assertThat(translation.endpoints())
        .extracting(Endpoint::ip, Endpoint::ports)
        .containsExactly(
            tuple("10.0.0.1", List.of(HTTP_PORT)),
            tuple("10.0.0.2", grpcPorts),
            tuple("10.0.0.3", grpcPorts));
  }

  @Test
  void theSameIpInTwoSubsetsIsPublishedOnceWithBothPorts() {
    EndpointSubset web = subset(List.of(HTTP), address("10.0.0.1"), address("10.0.0.2"));
    EndpointSubset metrics = subset(List.of(port("metrics", 9100, "TCP")), address("10.0.0.1"));

    Translation translation = EndpointsTranslator.translate(endpoints(web, metrics));

    assertThat(translation.endpoints())
        .extracting(Endpoint::ip, Endpoint::ports)
        .containsExactly(
            tuple("10.0.0.1", List.of(HTTP_PORT, new Port("metrics", 9100, "TCP"))),
            tuple("10.0.0.2", List.of(HTTP_PORT)));
  }

  @Test
  void endpointsAreSortedByIp() {
    EndpointSubset subset =
        subset(List.of(HTTP), address("10.0.0.3"), address("10.0.0.1"), address("10.0.0.2"));

    assertThat(ips(EndpointsTranslator.translate(endpoints(subset))))
        .containsExactly("10.0.0.1", "10.0.0.2", "10.0.0.3");
  }

  static Stream<Arguments> invalidIps() {
    return Stream.of(
        Arguments.of("octet over 255", "10.0.0.300"),
        Arguments.of("not an address", "abc"),
        Arguments.of("hostname", "example.com"),
        Arguments.of("empty", ""),
        Arguments.of("null", null),
        Arguments.of("leading zero", "10.01.0.1"),
        Arguments.of("CIDR", "10.0.0.0/24"),
        Arguments.of("IPv6 with zone", "fe80::1%eth0"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidIps")
  void anAddressThatIsNotAnIpIsSkippedAndTheOthersSurvive(String description, String ip) {
    EndpointSubset subset =
        subset(List.of(HTTP), address("10.0.0.1"), address(ip), address("fd00::1"));

    Translation translation = EndpointsTranslator.translate(endpoints(subset));

    assertThat(ips(translation)).as(description).containsExactly("10.0.0.1", "fd00::1");
    assertThat(translation.skips())
        .extracting(Skip::reason, Skip::object)
        .containsExactly(tuple(SkipReason.INVALID_IP, "Endpoints shop/checkout"));
  }

  @Test
  void aNullAddressEntryIsSkippedAsInvalid() {
    EndpointSubset subset = subset(List.of(HTTP), address("10.0.0.1"));
    subset.setAddresses(Arrays.asList(address("10.0.0.1"), null));

    Translation translation = EndpointsTranslator.translate(endpoints(subset));

    assertThat(ips(translation)).containsExactly("10.0.0.1");
    assertThat(translation.skips()).extracting(Skip::reason).containsExactly(SkipReason.INVALID_IP);
  }

  static Stream<Arguments> invalidPorts() {
    return Stream.of(
        Arguments.of("null number", Arrays.asList(port("http", null, "TCP"))),
        Arguments.of("port 0", Arrays.asList(port("http", 0, "TCP"))),
        Arguments.of("port 70000", Arrays.asList(port("http", 70000, "TCP"))),
        Arguments.of("null port entry", Arrays.asList((EndpointPort) null)),
        Arguments.of("one bad among good", Arrays.asList(HTTP, port("admin", -5, "TCP"))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidPorts")
  void aBadPortSkipsItsWholeSubsetOnly(String description, List<EndpointPort> ports) {
    EndpointSubset bad = subset(ports, address("10.0.0.8"), address("10.0.0.9"));
    EndpointSubset good = subset(List.of(HTTP), address("10.0.0.1"));

    Translation translation = EndpointsTranslator.translate(endpoints(bad, good));

    assertThat(ips(translation)).as(description).containsExactly("10.0.0.1");
    assertThat(translation.skips())
        .extracting(Skip::reason, Skip::object)
        .containsExactly(tuple(SkipReason.INVALID_PORT, "Endpoints shop/checkout"));
  }

  @Test
  void everyAddressIsReadyServingNotTerminatingWithoutZone() {
    EndpointAddress address =
        new EndpointAddressBuilder()
            .withIp("10.0.0.1")
            .withNodeName("node-7")
            .withTargetRef(
                new ObjectReferenceBuilder().withKind("Pod").withName("checkout-abc").build())
            .build();

    Translation translation =
        EndpointsTranslator.translate(endpoints(subset(List.of(HTTP), address)));

    assertThat(translation.endpoints())
        .containsExactly(
            new Endpoint(
                "10.0.0.1", List.of(HTTP_PORT), null, "node-7", "checkout-abc", true, true, false));
  }

  @Test
  void aTargetThatIsNotAPodGivesNoPodName() {
    EndpointAddress address =
        new EndpointAddressBuilder()
            .withIp("10.0.0.1")
            .withTargetRef(new ObjectReferenceBuilder().withKind("Node").withName("n").build())
            .build();

    Translation translation =
        EndpointsTranslator.translate(endpoints(subset(List.of(HTTP), address)));

    assertThat(translation.endpoints()).singleElement().extracting(Endpoint::pod).isNull();
  }

  @Test
  void missingPortNameBecomesEmptyAndMissingProtocolBecomesTcp() {
    EndpointSubset subset = subset(List.of(port(null, 80, null)), address("10.0.0.1"));

    assertThat(EndpointsTranslator.translate(endpoints(subset)).endpoints())
        .singleElement()
        .extracting(Endpoint::ports)
        .isEqualTo(List.of(new Port("", 80, "TCP")));
  }

  @Test
  void serviceKeyIsTheNamespaceAndName() {
    assertThat(EndpointsTranslator.serviceKeyOf(endpoints())).contains(new ServiceKey(NS, SERVICE));
  }

  static Stream<Arguments> badMetadata() {
    return Stream.of(
        Arguments.of("no metadata", null),
        Arguments.of("no namespace", new ObjectMetaBuilder().withName(SERVICE).build()),
        Arguments.of("no name", new ObjectMetaBuilder().withNamespace(NS).build()),
        Arguments.of(
            "blank name", new ObjectMetaBuilder().withNamespace(NS).withName(" ").build()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badMetadata")
  void endpointsWithoutNamespaceOrNameAreSkippedWhole(String description, ObjectMeta meta) {
    Endpoints endpoints = endpoints(subset(List.of(HTTP), address("10.0.0.1")));
    endpoints.setMetadata(meta);

    Translation translation = EndpointsTranslator.translate(endpoints);

    assertThat(EndpointsTranslator.serviceKeyOf(endpoints)).as(description).isEmpty();
    assertThat(translation.endpoints()).isEmpty();
    assertThat(translation.skips())
        .extracting(Skip::reason)
        .containsExactly(SkipReason.INVALID_METADATA);
  }

  @Test
  void translateNeverThrowsOnGarbage() {
    EndpointSubset nullLists = new EndpointSubset();
    nullLists.setAddresses(null);
    nullLists.setPorts(null);
    nullLists.setNotReadyAddresses(null);
    Endpoints noSubsets = endpoints();
    noSubsets.setSubsets(null);
    Endpoints nullSubset = endpoints();
    nullSubset.setSubsets(new ArrayList<>(Arrays.asList(null, nullLists)));

    for (Endpoints garbage : Arrays.asList(null, new Endpoints(), noSubsets, nullSubset)) {
      assertThatCode(() -> EndpointsTranslator.translate(garbage)).doesNotThrowAnyException();
      assertThat(EndpointsTranslator.translate(garbage).endpoints()).isEmpty();
    }
  }

  // ---------------------------------------------------------------- helpers

  private static EndpointPort port(String name, Integer number, String protocol) {
    EndpointPort port = new EndpointPort();
    port.setName(name);
    port.setPort(number);
    port.setProtocol(protocol);
    return port;
  }

  private static EndpointAddress address(String ip) {
    EndpointAddress address = new EndpointAddress();
    address.setIp(ip);
    return address;
  }

  private static EndpointSubset subset(List<EndpointPort> ports, EndpointAddress... addresses) {
    EndpointSubset subset = new EndpointSubset();
    subset.setPorts(new ArrayList<>(ports));
    subset.setAddresses(new ArrayList<>(Arrays.asList(addresses)));
    return subset;
  }

  private static Endpoints endpoints(EndpointSubset... subsets) {
    return new EndpointsBuilder()
        .withNewMetadata()
        .withNamespace(NS)
        .withName(SERVICE)
        .endMetadata()
        .withSubsets(subsets)
        .build();
  }

  private static List<String> ips(Translation translation) {
    return translation.endpoints().stream().map(Endpoint::ip).toList();
  }
}
