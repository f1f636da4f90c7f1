package dev.routesync.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.api.v1.Endpoint;
import dev.routesync.api.v1.Port;
import dev.routesync.api.v1.ServiceEndpoints;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class EndpointTableTest {

  @Test
  void showsEveryEndpointInAddressOrderWithPortsPlacementAndConditions() {
    assertThat(EndpointTable.render(Messages.cart()))
        .isEqualTo(
            """
            IP          PORTS                          NODE     ZONE     POD      READY   SERVING   TERMINATING
            10.1.0.9    http:8080/TCP                  <none>   <none>   <none>   false   true      true
            10.1.0.11   http:8080/TCP,admin:9090/TCP   node-a   zone-a   cart-1   true    true      false
            10.1.0.12   http:8080/TCP,admin:9090/TCP   node-b   zone-b   cart-2   true    true      false
            """);
  }

  @Test
  void printsNothingForAServiceWithoutEndpoints() {
    assertThat(EndpointTable.render(Messages.service("shop", "empty", 3))).isEmpty();
  }

  static Stream<Arguments> ports() {
    return Stream.of(
        Arguments.of(new Port[] {Messages.HTTP}, "http:8080/TCP"),
        Arguments.of(new Port[] {Messages.port("", 9000, "TCP")}, "9000/TCP"),
        Arguments.of(
            new Port[] {Messages.port("dns", 53, "UDP"), Messages.HTTP},
            "dns:53/UDP,http:8080/TCP"),
        Arguments.of(new Port[] {Messages.port("raw", 7, "")}, "raw:7"),
        Arguments.of(new Port[] {}, ""));
  }

  @ParameterizedTest
  @MethodSource("ports")
  void rendersPortsAsNameColonNumberSlashProtocol(Port[] ports, String expected) {
    Endpoint endpoint = Messages.ready("10.0.0.1", "n", "z", "p", ports);

    assertThat(EndpointTable.ports(endpoint)).isEqualTo(expected);
  }

  @Test
  void printsNoneForAnEndpointWithoutPorts() {
    ServiceEndpoints service =
        Messages.service("shop", "bare", 1, Messages.ready("10.0.0.1", "n", "z", "p"));

    assertThat(EndpointTable.render(service).lines().skip(1))
        .containsExactly("10.0.0.1   <none>   n      z      p     true    true      false");
  }
}
