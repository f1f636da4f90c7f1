package dev.routesync.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.api.v1.Endpoint;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Addresses by their bytes; text that is no IP literal goes last and is never looked up. */
class AddressOrderTest {

  @Test
  void literalsByTheirBytesAndAnythingElseLastAsText() {
    List<String> sorted =
        AddressOrder.sorted(
                ips(
                    "ab.cd.ef.ab",
                    "fd00::10",
                    "10.0.0.10",
                    "localhost",
                    "10.0.0.9",
                    "::1",
                    "1.2.3"))
            .stream()
            .map(Endpoint::getIp)
            .toList();
    assertThat(sorted)
        .containsExactly(
            "10.0.0.9", "10.0.0.10", "::1", "fd00::10", "1.2.3", "ab.cd.ef.ab", "localhost");
  }

  private static List<Endpoint> ips(String... ips) {
    return java.util.Arrays.stream(ips).map(ip -> Endpoint.newBuilder().setIp(ip).build()).toList();
  }
}
