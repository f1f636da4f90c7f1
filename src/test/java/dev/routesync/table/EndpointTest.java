package dev.routesync.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The compact {@link Endpoint} keeps the text record's meaning: every attribute reads back as
 * given, equality and hashing follow the text values, and the order is the IP text's.
 */
class EndpointTest {

  private static final List<Port> HTTP = List.of(new Port("http", 8080, "TCP"));

  private static Endpoint endpoint(String ip, String pod) {
    return new Endpoint(ip, HTTP, "z1", "node-a", pod, true, true, false);
  }

  /** An independent copy of the text, so nothing is equal by identity. */
  private static String copy(String text) {
    return text == null ? null : new String(text.toCharArray());
  }

  // ------------------------------------------------------------------ IP text

  @ParameterizedTest
  @ValueSource(
      strings = {
        "0.0.0.0",
        "10.0.0.1",
        "10.64.3.255",
        "127.0.0.1",
        "192.168.100.10",
        "255.255.255.255",
        "1.2.3.4",
        "::",
        "::1",
        "fd00::1",
        "2001:db8::ff00:42:8329",
        "2001:db8:0:1:1:1:1:1",
        "::ffff:10.0.0.1",
        "fe80::1ff:fe23:4567:890a"
      })
  void theIpReadsBackAsGiven(String ip) {
    Endpoint endpoint = endpoint(copy(ip), "p");

    assertThat(endpoint.ip()).isEqualTo(ip);
    assertThat(endpoint.isIpv4()).isEqualTo(ip.indexOf(':') < 0);
    assertThat(endpoint).isEqualTo(endpoint(copy(ip), "p")).hasSameHashCodeAs(endpoint(ip, "p"));
  }

  @Test
  void ipv4IsHeldAsItsValue() {
    Endpoint endpoint = endpoint("10.64.3.255", null);

    assertThat(endpoint.isIpv4()).isTrue();
    assertThat(endpoint.ipv4()).isEqualTo(0x0A4003FF);
    assertThat(Endpoint.ofIpv4(0x0A4003FF, HTTP, "z1", "node-a", null, true, true, false))
        .isEqualTo(endpoint)
        .hasSameHashCodeAs(endpoint)
        .hasToString(endpoint.toString());
  }

  @Test
  void everyIpv4ValueRoundTripsThroughItsText() {
    Random random = new Random(7);
    for (int i = 0; i < 10_000; i++) {
      int address = random.nextInt();
      String text = Ipv4.format(address);
      assertThat(Ipv4.parse(text)).isEqualTo(address & 0xFFFF_FFFFL);
      assertThat(endpoint(text, null).ipv4()).isEqualTo(address);
    }
  }

  /** Text that is not a strict dotted quad is kept as given, never read as another address. */
  @ParameterizedTest
  @ValueSource(
      strings = {"010.0.0.1", "10.0.0", "10.0.0.1.", "10.0.0.256", "1.2.3.4.5", "a.b.c.d", "", " "})
  void otherTextIsKeptVerbatim(String ip) {
    Endpoint endpoint = endpoint(ip, null);

    assertThat(endpoint.isIpv4()).isFalse();
    assertThat(endpoint.ip()).isEqualTo(ip);
    assertThat(Ipv4.parse(ip)).isEqualTo(-1);
  }

  @Test
  void theIpIsRequired() {
    assertThatThrownBy(() -> endpoint(null, null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("ip");
  }

  // ------------------------------------------------------------------ pod names

  static Stream<Arguments> podNames() {
    return Stream.of(
        Arguments.of("no pod", null),
        Arguments.of("empty", ""),
        Arguments.of("no '-'", "standalone"),
        Arguments.of("trailing '-'", "web-"),
        Arguments.of("only '-'", "-"),
        Arguments.of("leading '-'", "-abc"),
        Arguments.of("Deployment, 5-char suffix", "checkout-7d9f8b6c5d-x2x7q"),
        Arguments.of("8-char suffix (the most packed)", "checkout-7d9f8b6c5d-abcdefgh"),
        Arguments.of("9-char suffix (kept whole)", "checkout-7d9f8b6c5d-abcdefghi"),
        Arguments.of("StatefulSet", "web-0"),
        Arguments.of("StatefulSet, large ordinal", "web-12345678"),
        Arguments.of("non-ASCII suffix", "caf\u00e9-\u00e9t\u00e9"),
        Arguments.of("non-ASCII prefix only", "caf\u00e9-abc"),
        Arguments.of("non-BMP suffix", "app-\ud83d\ude00"),
        Arguments.of("DEL in the suffix (ASCII 127)", "app-a\u007fb"),
        Arguments.of("NUL in the suffix (kept whole)", "app-a\u0000b"),
        Arguments.of("dots after the last '-'", "host-a.b.c"),
        Arguments.of("many dashes", "a-b-c-d-e-f"),
        Arguments.of("253 characters", "x".repeat(240) + "-abcdefghijkl"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("podNames")
  void thePodNameReadsBackAsGivenAndComparesByItsText(String shape, String pod) {
    Endpoint endpoint = endpoint("10.0.0.1", copy(pod));

    assertThat(endpoint.pod()).isEqualTo(pod);
    assertThat(endpoint).isEqualTo(endpoint("10.0.0.1", copy(pod)));
    assertThat(endpoint.hashCode()).isEqualTo(endpoint("10.0.0.1", copy(pod)).hashCode());
    assertThat(endpoint.toString()).contains("pod=" + pod + ",");
  }

  /** Every pair of distinct shapes is unequal, including names that split into similar parts. */
  @Test
  void distinctPodNamesAreUnequal() {
    List<String> names = new ArrayList<>();
    podNames().forEach(arguments -> names.add((String) arguments.get()[1]));
    names.addAll(List.of("web-00", "web0", "web-0-", "web--0", "we-b-0", "web-1", "wed-0"));
    for (String a : names) {
      for (String b : names) {
        Endpoint x = endpoint("10.0.0.1", copy(a));
        Endpoint y = endpoint("10.0.0.1", copy(b));
        assertThat(x.equals(y)).as("%s vs %s", a, b).isEqualTo(java.util.Objects.equals(a, b));
      }
    }
  }

  @Test
  void replicasShareOnePrefixInstance() throws Exception {
    java.lang.reflect.Field text = Endpoint.class.getDeclaredField("podText");
    text.setAccessible(true);
    Endpoint first = endpoint("10.0.0.1", copy("checkout-7d9f8b6c5d-x2x7q"));
    Endpoint second = endpoint("10.0.0.2", copy("checkout-7d9f8b6c5d-bbbbb"));
    Endpoint other = endpoint("10.0.0.3", copy("cart-5c6d7e8f9a-ccccc"));
    Endpoint third = endpoint("10.0.0.4", copy("checkout-7d9f8b6c5d-ddddd"));

    assertThat(text.get(first)).isEqualTo("checkout-7d9f8b6c5d-").isSameAs(text.get(second));
    assertThat(text.get(third)).isSameAs(text.get(first));
    assertThat(text.get(other)).isEqualTo("cart-5c6d7e8f9a-");
  }

  // ------------------------------------------------------------------ equality

  @Test
  void everyAttributeTakesPartInEquality() {
    Endpoint base = new Endpoint("10.0.0.1", HTTP, "z1", "n1", "p-1", true, true, false);
    List<Endpoint> variants =
        List.of(
            new Endpoint("10.0.0.2", HTTP, "z1", "n1", "p-1", true, true, false),
            new Endpoint("fd00::1", HTTP, "z1", "n1", "p-1", true, true, false),
            new Endpoint("10.0.0.1", List.of(), "z1", "n1", "p-1", true, true, false),
            new Endpoint("10.0.0.1", HTTP, "z2", "n1", "p-1", true, true, false),
            new Endpoint("10.0.0.1", HTTP, null, "n1", "p-1", true, true, false),
            new Endpoint("10.0.0.1", HTTP, "z1", "n2", "p-1", true, true, false),
            new Endpoint("10.0.0.1", HTTP, "z1", null, "p-1", true, true, false),
            new Endpoint("10.0.0.1", HTTP, "z1", "n1", "p-2", true, true, false),
            new Endpoint("10.0.0.1", HTTP, "z1", "n1", "q-1", true, true, false),
            new Endpoint("10.0.0.1", HTTP, "z1", "n1", null, true, true, false),
            new Endpoint("10.0.0.1", HTTP, "z1", "n1", "p-1", false, true, false),
            new Endpoint("10.0.0.1", HTTP, "z1", "n1", "p-1", true, false, false),
            new Endpoint("10.0.0.1", HTTP, "z1", "n1", "p-1", true, true, true));
    for (Endpoint variant : variants) {
      assertThat(variant).isNotEqualTo(base);
    }
    assertThat(base)
        .isEqualTo(
            new Endpoint(
                copy("10.0.0.1"),
                List.of(new Port(copy("http"), 8080, copy("TCP"))),
                copy("z1"),
                copy("n1"),
                copy("p-1"),
                true,
                true,
                false))
        .isNotEqualTo(null)
        .isNotEqualTo("10.0.0.1");
  }

  @Test
  void theAccessorsReturnWhatWasGiven() {
    Endpoint endpoint = new Endpoint("fd00::1", HTTP, "z1", "n1", "web-0", false, true, true);

    assertThat(endpoint.ip()).isEqualTo("fd00::1");
    assertThat(endpoint.ports()).isEqualTo(HTTP);
    assertThat(endpoint.zone()).isEqualTo("z1");
    assertThat(endpoint.node()).isEqualTo("n1");
    assertThat(endpoint.pod()).isEqualTo("web-0");
    assertThat(endpoint.ready()).isFalse();
    assertThat(endpoint.serving()).isTrue();
    assertThat(endpoint.terminating()).isTrue();
    assertThat(endpoint)
        .hasToString(
            "Endpoint[ip=fd00::1, ports=[Port[name=http, port=8080, protocol=TCP]], zone=z1,"
                + " node=n1, pod=web-0, ready=false, serving=true, terminating=true]");
  }

  @Test
  void hintsTakePartInEqualityAndCostAHintlessEndpointNothing() {
    EndpointHints zoneA = EndpointHints.of(List.of("z1"), List.of());
    Endpoint plain = new Endpoint("10.0.0.1", HTTP, "z1", "n1", "p-1", true, true, false);
    Endpoint hinted = new Endpoint("10.0.0.1", HTTP, "z1", zoneA, "n1", "p-1", true, true, false);
    Endpoint nodeHinted =
        Endpoint.ofIpv4(
            0x0a000001,
            HTTP,
            "z1",
            EndpointHints.of(List.of(), List.of("n1")),
            "n1",
            "p-1",
            true,
            true,
            false);

    assertThat(plain.hints()).isSameAs(EndpointHints.NONE);
    assertThat(hinted.hints()).isEqualTo(zoneA);
    assertThat(hinted.zone()).isEqualTo("z1");
    assertThat(hinted).isNotEqualTo(plain).isNotEqualTo(nodeHinted);
    assertThat(hinted)
        .isEqualTo(new Endpoint("10.0.0.1", HTTP, "z1", zoneA, "n1", "p-1", true, true, false))
        .hasSameHashCodeAs(
            new Endpoint("10.0.0.1", HTTP, "z1", zoneA, "n1", "p-1", true, true, false));
    assertThat(hinted.withPorts(List.of()).hints()).isEqualTo(zoneA);
    // Empty hints are no hints: the same endpoint as one built without.
    assertThat(
            new Endpoint(
                "10.0.0.1",
                HTTP,
                "z1",
                new EndpointHints(List.of(), List.of()),
                "n1",
                "p-1",
                true,
                true,
                false))
        .isEqualTo(plain)
        .hasSameHashCodeAs(plain);
    // The compact layout keeps its size: the zone and hints share one field.
    assertThat(org.openjdk.jol.info.ClassLayout.parseClass(Endpoint.class).instanceSize())
        .isLessThanOrEqualTo(48);
  }

  @Test
  void thePortsAreCopiedAndUnmodifiable() {
    List<Port> ports = new ArrayList<>(HTTP);
    Endpoint endpoint = new Endpoint("10.0.0.1", ports, null, null, null, true, true, false);
    ports.clear();

    assertThat(endpoint.ports()).isEqualTo(HTTP);
    assertThatThrownBy(() -> endpoint.ports().clear())
        .isInstanceOf(UnsupportedOperationException.class);
    assertThat(endpoint.withPorts(List.of()).ports()).isEmpty();
    assertThat(endpoint.withPorts(List.of()).ip()).isEqualTo("10.0.0.1");
  }

  // ------------------------------------------------------------------ order

  @Test
  void theOrderIsTheIpTextsNotTheNumbers() {
    List<Endpoint> endpoints =
        new ArrayList<>(
            List.of(
                endpoint("10.0.0.9", null),
                endpoint("10.0.0.10", null),
                endpoint("10.0.0.100", null),
                endpoint("9.0.0.1", null),
                endpoint("1.0.0.1", null)));
    endpoints.sort(null);

    assertThat(endpoints)
        .extracting(Endpoint::ip)
        .containsExactly("1.0.0.1", "10.0.0.10", "10.0.0.100", "10.0.0.9", "9.0.0.1");
  }

  /**
   * The stored form orders exactly as the text did, IPv4 against IPv4, IPv6 and any other text,
   * including quads whose text prefixes another's (1.2.3.4 and 1.2.3.45).
   */
  @Test
  void compareToAgreesWithTheTextOrderOnEveryPair() {
    Random random = new Random(11);
    List<String> ips = new ArrayList<>();
    int[] octets = {0, 1, 2, 9, 10, 19, 25, 99, 100, 101, 199, 200, 249, 250, 255};
    for (int i = 0; i < 300; i++) {
      ips.add(
          octets[random.nextInt(octets.length)]
              + "."
              + octets[random.nextInt(octets.length)]
              + "."
              + octets[random.nextInt(octets.length)]
              + "."
              + octets[random.nextInt(octets.length)]);
    }
    ips.addAll(
        List.of(
            "1.2.3.4",
            "1.2.3.45",
            "1.2.3.40",
            "1::",
            "1::1",
            "10::1",
            "100::",
            "101::",
            "1.2.3.4a",
            "1.2.3",
            "1.2.3.",
            "2001:db8::1",
            "fd00::1",
            "::1",
            "::",
            "255.255.255.255",
            "0.0.0.0",
            "9"));
    for (String a : ips) {
      for (String b : ips) {
        int expected = Integer.signum(a.compareTo(b));
        assertThat(Integer.signum(endpoint(a, null).compareTo(endpoint(b, null))))
            .as("%s vs %s", a, b)
            .isEqualTo(expected);
        assertThat(endpoint(a, null).sameAddress(endpoint(b, null))).isEqualTo(a.equals(b));
      }
    }
  }

  @Test
  void sortingMatchesSortingTheTexts() {
    Random random = new Random(3);
    List<Endpoint> endpoints = new ArrayList<>();
    for (int i = 0; i < 2_000; i++) {
      String ip =
          random.nextInt(8) == 0
              ? "fd00::" + Integer.toHexString(random.nextInt(65536))
              : Ipv4.format(random.nextInt());
      endpoints.add(endpoint(ip, null));
    }
    List<Endpoint> byText = new ArrayList<>(endpoints);
    byText.sort(Comparator.comparing(Endpoint::ip));
    endpoints.sort(null);

    assertThat(endpoints).containsExactlyElementsOf(byText);
  }

  // ------------------------------------------------------------------ dual-stack addresses

  @Test
  void aDualStackEndpointCarriesItsOtherAddressBesideItsZoneAndHints() {
    EndpointHints zoneA = EndpointHints.of(List.of("zone-a"), List.of());
    Endpoint single =
        new Endpoint("10.0.0.1", HTTP, "z1", zoneA, "node-a", "web-1", true, true, false);

    Endpoint dual = single.withAdditionalAddresses(List.of("fd00::1"));

    assertThat(dual.ip()).isEqualTo("10.0.0.1");
    assertThat(dual.additionalAddresses()).containsExactly("fd00::1");
    assertThat(dual.addresses()).containsExactly("10.0.0.1", "fd00::1");
    assertThat(dual.zone()).isEqualTo("z1");
    assertThat(dual.hints()).isEqualTo(zoneA);
    assertThat(dual.pod()).isEqualTo("web-1");
    assertThat(dual).isNotEqualTo(single);
    assertThat(dual.compareTo(single)).isZero();
    assertThat(dual.sameAddress(single)).isTrue();
    assertThat(dual.withPorts(List.of()).additionalAddresses()).containsExactly("fd00::1");
    assertThat(dual.withConditions(false, true, true).additionalAddresses())
        .containsExactly("fd00::1");
    assertThat(dual.withConditions(false, true, true).terminating()).isTrue();
    assertThat(dual.toString()).contains("additionalAddresses=[fd00::1]");
    assertThat(single.toString()).doesNotContain("additionalAddresses");
    // Equal values, equal endpoints, however they were built.
    Endpoint again =
        new Endpoint(copy("10.0.0.1"), HTTP, "z1", zoneA, "node-a", "web-1", true, true, false)
            .withAdditionalAddresses(List.of(copy("fd00::1")));
    assertThat(again).isEqualTo(dual).hasSameHashCodeAs(dual);
    // None again is the single-stack endpoint itself (the same layout, the same value).
    assertThat(dual.withAdditionalAddresses(List.of())).isEqualTo(single).hasSameHashCodeAs(single);
  }

  @Test
  void anIpv6PrimaryWithoutHintsKeepsItsIpv4AddressAsText() {
    Endpoint dual =
        new Endpoint("fd00::1", HTTP, null, "node-a", "web-1", true, true, false)
            .withAdditionalAddresses(List.of("10.0.0.1"));

    assertThat(dual.addresses()).containsExactly("fd00::1", "10.0.0.1");
    assertThat(dual.isIpv4()).isFalse();
    assertThat(dual.zone()).isNull();
    assertThat(dual.hints()).isSameAs(EndpointHints.NONE);
  }

  @Test
  void anAdditionalAddressThatRepeatsOneIsRefused() {
    Endpoint single = endpoint("10.0.0.1", "web-1");

    assertThatThrownBy(() -> single.withAdditionalAddresses(List.of("10.0.0.1")))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> single.withAdditionalAddresses(List.of("fd00::1", "fd00::1")))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> single.withAdditionalAddresses(List.of(" ")))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void podsAreComparedWithoutText() {
    Endpoint a = endpoint("10.0.0.1", "web-7d9f8b6c5d-x2x7q");
    Endpoint b = endpoint("fd00::1", copy("web-7d9f8b6c5d-x2x7q"));
    Endpoint c = endpoint("10.0.0.2", "web-7d9f8b6c5d-zzzzz");
    Endpoint none = endpoint("10.0.0.3", null);

    assertThat(a.samePod(b)).isTrue();
    assertThat(a.comparePod(b)).isZero();
    assertThat(a.samePod(c)).isFalse();
    assertThat(Integer.signum(a.comparePod(c))).isEqualTo(-Integer.signum(c.comparePod(a)));
    assertThat(a.comparePod(c)).isNotZero();
    assertThat(none.samePod(none)).isFalse();
    assertThat(none.hasPod()).isFalse();
    assertThat(a.hasPod()).isTrue();
  }
}
