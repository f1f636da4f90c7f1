package dev.routesync.kube.translate;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

class IpAddressesTest {

  @ParameterizedTest
  @ValueSource(
      strings = {
        "0.0.0.0",
        "10.0.0.1",
        "10.0.0.10",
        "192.168.100.200",
        "255.255.255.255",
        "1.2.3.4",
        "100.64.0.0"
      })
  void validIpv4LiteralsAreAccepted(String text) {
    assertThat(IpAddresses.isIpv4(text)).isTrue();
    assertThat(IpAddresses.isIpv6(text)).isFalse();
    assertThat(IpAddresses.isIp(text)).isTrue();
  }

  @ParameterizedTest
  @NullAndEmptySource
  @ValueSource(
      strings = {
        "256.0.0.1",
        "10.0.0.300",
        "10.0.0",
        "10.0.0.0.1",
        "10.0.0.",
        ".10.0.0.1",
        "10..0.1",
        "10.01.0.1",
        "00.0.0.0",
        "010.0.0.1",
        "1000.0.0.1",
        "+1.2.3.4",
        "1.2.3.-4",
        "1.2.3.4 ",
        " 1.2.3.4",
        "1.2.3.4/32",
        "1.2.3.4:80",
        "a.b.c.d",
        "0x1.2.3.4",
        "\u0661.\u0662.\u0663.\u0664",
        "\uff11.2.3.4",
        "167772161",
        "::1"
      })
  void invalidIpv4LiteralsAreRejected(String text) {
    assertThat(IpAddresses.isIpv4(text)).isFalse();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "::",
        "::1",
        "fd00::1",
        "2001:db8::1",
        "2001:DB8::1",
        "2001:db8:0:0:0:0:0:1",
        "fe80::1:2:3:4",
        "1:2:3:4:5:6:7:8",
        "64:ff9b::1.2.3.4"
      })
  void validIpv6LiteralsAreAccepted(String text) {
    assertThat(IpAddresses.isIpv6(text)).isTrue();
    assertThat(IpAddresses.isIpv4(text)).isFalse();
    assertThat(IpAddresses.isIp(text)).isTrue();
  }

  @ParameterizedTest
  @NullAndEmptySource
  @ValueSource(
      strings = {
        ":",
        ":::",
        "1::2::3",
        "1:2:3:4:5:6:7:8:9",
        "12345::1",
        "gggg::1",
        "fe80::1%eth0",
        "fe80::1%1",
        "[::1]",
        "::1/128",
        " ::1",
        "fd00::1 ",
        "10.0.0.1",
        "fd00",
        "1.2.3.4:80",
        "example.com:443"
      })
  void invalidIpv6LiteralsAreRejected(String text) {
    assertThat(IpAddresses.isIpv6(text)).isFalse();
  }

  @Test
  void ipv4MappedIpv6AddressesAreNotIpv6() {
    // Java folds ::ffff:a.b.c.d into an IPv4 address; the API server rejects it in IPv6 slices too.
    assertThat(IpAddresses.isIpv6("::ffff:10.0.0.1")).isFalse();
  }

  @ParameterizedTest
  @ValueSource(strings = {"example.com", "localhost", "kubernetes.default.svc", "checkout"})
  void hostnamesAreNotIpAddresses(String text) {
    assertThat(IpAddresses.isIpv4(text)).isFalse();
    assertThat(IpAddresses.isIpv6(text)).isFalse();
    assertThat(IpAddresses.isIp(text)).isFalse();
  }

  @ParameterizedTest
  @org.junit.jupiter.params.provider.CsvSource({
    "2001:DB8::1, 2001:db8::1",
    "2001:db8:0:0:0:0:0:1, 2001:db8::1",
    "fd00:0:0:1:0:0:0:0, fd00:0:0:1::",
    "0:0:0:0:0:0:0:1, ::1",
    "2001:db8:0:1:1:1:1:1, 2001:db8:0:1:1:1:1:1",
    "2001:0:0:1:0:0:0:1, 2001:0:0:1::1",
    "::, ::"
  })
  void ipv6IsCanonicalisedAsRfc5952(String text, String canonical) {
    assertThat(IpAddresses.canonicalIpv6(text)).isEqualTo(canonical);
  }

  @ParameterizedTest
  @ValueSource(strings = {"zz::1", "host:80", "fe80::1%eth0", "[::1]", "g::1"})
  void ipv6CandidatesWithForeignCharactersAreRejectedBeforeAnyParsing(String text) {
    assertThat(IpAddresses.canonicalIpv6(text)).isNull();
  }
}
