package dev.routesync.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.table.Endpoint;
import dev.routesync.table.Port;
import dev.routesync.testing.ServeHarness;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code get endpoints} lists endpoints in address order, not text order: {@code 10.1.1.13} before
 * {@code 10.1.1.120}, IPv4 before IPv6, IPv6 by its bytes ({@code fd00::2} before {@code
 * fd00::10}).
 */
@Timeout(60)
class AddressOrderCliTest {

  private ServeHarness serve;

  @BeforeEach
  void start() throws Exception {
    serve = new ServeHarness();
    serve.put(
        "shop",
        "cart",
        List.of(
            endpoint("fd00::10", "cart-5"),
            endpoint("10.1.1.120", "cart-1"),
            endpoint("fd00::2", "cart-4"),
            endpoint("10.1.1.13", "cart-2"),
            endpoint("10.1.1.9", "cart-3"),
            endpoint("9.255.0.1", "cart-0")));
  }

  @AfterEach
  void stop() throws Exception {
    serve.close();
  }

  private static Endpoint endpoint(String ip, String pod) {
    return new Endpoint(
        ip, List.of(new Port("http", 8080, "TCP")), "zone-a", "node-a", pod, true, true, false);
  }

  private Cli.Result run(String args) {
    return Cli.run((args + " --socket " + serve.socket()).split(" "));
  }

  private static List<String> firstColumn(String table) {
    return table.lines().skip(1).map(line -> line.split(" +")[0]).toList();
  }

  @Test
  void theTableListsEndpointsInAddressOrder() {
    Cli.Result result = run("get endpoints shop/cart");

    assertThat(result.exitCode()).isZero();
    assertThat(firstColumn(result.out()))
        .containsExactly("9.255.0.1", "10.1.1.9", "10.1.1.13", "10.1.1.120", "fd00::2", "fd00::10");
  }

  @Test
  void theWideTableListsEndpointsInAddressOrder() {
    Cli.Result result = run("get endpoints shop/cart -o wide");

    assertThat(result.exitCode()).isZero();
    // The topology decision's line, then the table.
    assertThat(firstColumn(result.out().substring(result.out().indexOf('\n') + 1)))
        .containsExactly("9.255.0.1", "10.1.1.9", "10.1.1.13", "10.1.1.120", "fd00::2", "fd00::10");
  }
}
