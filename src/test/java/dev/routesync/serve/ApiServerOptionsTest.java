package dev.routesync.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vertx.grpc.common.ServiceName;
import io.vertx.grpc.server.Service;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The API server's options: documented defaults, and bad values refused as they are set. */
class ApiServerOptionsTest {

  private static final Path SOCKET = Path.of("/run/routesync/api.sock");

  @Test
  void onASocketTheDefaultsServeReflectionAndNoTcpWithoutLimits() {
    ApiServerOptions options = ApiServerOptions.onSocket(SOCKET);

    assertThat(options.socketPath()).isEqualTo(SOCKET);
    assertThat(options.tcpAddress()).isEmpty();
    assertThat(options.reflection()).isTrue();
    assertThat(options.guards().enabled()).isFalse();
    assertThat(options.limits()).isEqualTo(ConnectionLimits.DEFAULT);
    assertThat(options.extraServices()).isEmpty();
  }

  @Test
  void eachWithChangesOnlyWhatItNamesAndLeavesTheOriginalAlone() {
    ApiServerOptions defaults = ApiServerOptions.onSocket(SOCKET);
    InetSocketAddress loopback = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    ApiServerOptions changed = defaults.withTcpAddress(Optional.of(loopback)).withReflection(false);

    assertThat(changed.tcpAddress()).contains(loopback);
    assertThat(changed.reflection()).isFalse();
    assertThat(changed.socketPath()).isEqualTo(SOCKET);
    assertThat(changed.limits()).isEqualTo(ConnectionLimits.DEFAULT);
    assertThat(defaults.tcpAddress()).isEmpty();
    assertThat(defaults.reflection()).isTrue();
  }

  @Test
  void theExtraServicesAreACopy() {
    List<Service> extras = new ArrayList<>(List.of(service("test.Floor")));
    ApiServerOptions options = ApiServerOptions.onSocket(SOCKET).withExtraServices(extras);

    extras.add(service("test.Other"));

    assertThat(options.extraServices()).hasSize(1);
  }

  @Test
  void aMissingSocketPathIsRefusedByName() {
    assertThatThrownBy(() -> ApiServerOptions.onSocket(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("ApiServerOptions: socketPath is required");
  }

  @Test
  void aTcpAddressOtherThanLoopbackIsRefused() {
    InetSocketAddress everyone = new InetSocketAddress("0.0.0.0", 8080);

    assertThatThrownBy(
            () -> ApiServerOptions.onSocket(SOCKET).withTcpAddress(Optional.of(everyone)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "ApiServerOptions: tcpAddress 0.0.0.0:8080 is not a loopback address"
                + " (127.0.0.0/8 or ::1)");
  }

  @Test
  void anExtraServiceGivenTwiceIsRefusedAsSuch() {
    List<Service> twice = List.of(service("test.Floor"), service("test.Floor"));

    assertThatThrownBy(() -> ApiServerOptions.onSocket(SOCKET).withExtraServices(twice))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("ApiServerOptions: extra gRPC service test.Floor is given twice");
  }

  private static Service service(String name) {
    return Service.service(ServiceName.create(name), null).build();
  }
}
