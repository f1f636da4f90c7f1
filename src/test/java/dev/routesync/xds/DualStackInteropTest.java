package dev.routesync.xds;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.testing.AgentHarness;
import dev.routesync.testing.MockCluster;
import dev.routesync.testing.Slices;
import dev.routesync.testing.Slices.Conditions;
import dev.routesync.testing.TcpProxy;
import dev.routesync.testing.XdsAgent;
import dev.routesync.testing.XdsBackends;
import dev.routesync.testing.XdsBackends.Backend;
import dev.routesync.testing.XdsBootstrap;
import dev.routesync.testing.XdsObjects;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * grpc-java's own xDS client (unmodified) and a dual-stack pod: its Service {@code cart} has {@code
 * ipFamilies: [IPv4, IPv6]}, and the EndpointSlice controller lists its one pod in an IPv4 slice at
 * 127.0.0.3 and an IPv6 slice at ::1, both with the pod as {@code targetRef}. Nothing listens on
 * 127.0.0.3; the pod's backend listens on [::1] (the same port: every address of an endpoint shares
 * its ports). The agent sends one endpoint, 127.0.0.3 as its address and ::1 as its {@code
 * additional_addresses} (gRFC A61).
 *
 * <p>grpc-java 1.85.1 reads {@code additional_addresses} only with {@code
 * GRPC_EXPERIMENTAL_XDS_DUALSTACK_ENDPOINTS=true} ({@code
 * XdsEndpointResource.isEnabledXdsDualStack} defaults to false in its bytecode; the flag is read
 * from the environment, else from the system property of that name, at each EDS update). Without
 * it, it calls the primary address only, and every call fails; with it, the pod gets its calls
 * through ::1.
 */
@Timeout(90)
class DualStackInteropTest {

  private static final String TARGET = "xds:///cart.shop:8080";
  private static final String DUALSTACK_FLAG = "GRPC_EXPERIMENTAL_XDS_DUALSTACK_ENDPOINTS";
  private static final Duration CALL_DEADLINE = Duration.ofSeconds(2);
  private static final Duration FOLLOW = Duration.ofSeconds(5);

  /** The first xDS channel in a JVM takes seconds (grpc-xds loads its shaded protos). */
  private static final Duration FIRST_ROUTE = Duration.ofSeconds(30);

  @TempDir Path dir;

  private MockCluster cluster;
  private AgentHarness agent;
  private XdsBackends backends;
  private TcpProxy proxy;
  private ManagedChannel channel;

  @BeforeEach
  void start() throws Exception {
    Assumptions.assumeTrue(
        System.getenv(DUALSTACK_FLAG) == null,
        DUALSTACK_FLAG + " is set in the environment: this test sets it itself");
    System.clearProperty(DUALSTACK_FLAG);
    backends = XdsBackends.startOn("pod-on-ipv6", "::1");
    cluster = new MockCluster();
    Service cart = XdsObjects.service("shop", "cart", XdsObjects.port("http", 8080));
    cart.getSpec().setIpFamilies(List.of("IPv4", "IPv6"));
    cart.getSpec().setIpFamilyPolicy("RequireDualStack");
    cluster.apply(cart);
    Backend backend = backends.get("pod-on-ipv6");
    cluster.apply(slice("cart-ipv4", "IPv4", "127.0.0.3", backend.port()));
    cluster.apply(slice("cart-ipv6", "IPv6", "::1", backend.port()));
    proxy = new TcpProxy(cluster.port());
    agent = XdsAgent.start(proxy.url(), dir.resolve("rs.sock"), 0).cutOnClose(proxy);
    Awaitility.await("both slices in the table")
        .atMost(FOLLOW)
        .until(
            () ->
                agent
                    .service("shop", "cart")
                    .filter(s -> !s.servicePorts().isEmpty())
                    .filter(s -> s.endpoints().stream().anyMatch(e -> e.toString().contains("::1")))
                    .isPresent());
    assertThat(agent.service("shop", "cart").orElseThrow().endpoints())
        .as("the pod is one endpoint, 127.0.0.3 (the first family's address) its primary")
        .singleElement()
        .satisfies(e -> assertThat(e.ip()).isEqualTo("127.0.0.3"));
  }

  @AfterEach
  void stop() throws Exception {
    System.clearProperty(DUALSTACK_FLAG);
    if (channel != null) {
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
    if (backends != null) {
      backends.close();
    }
    if (cluster != null) {
      cluster.close();
    }
    if (agent != null) {
      agent.close();
    }
    if (proxy != null) {
      proxy.close();
    }
  }

  @Test
  void withA61OnGrpcJavaReachesThePodThroughItsAdditionalAddress() throws Exception {
    System.setProperty(DUALSTACK_FLAG, "true");
    channel = channel();

    String answered =
        Awaitility.await("a call answered through ::1")
            .atMost(FIRST_ROUTE)
            .ignoreExceptions()
            .until(() -> XdsBackends.who(channel, CALL_DEADLINE), "pod-on-ipv6"::equals);

    assertThat(answered).isEqualTo("pod-on-ipv6");
    for (int i = 0; i < 20; i++) {
      assertThat(XdsBackends.who(channel, CALL_DEADLINE)).isEqualTo("pod-on-ipv6");
    }
  }

  @Test
  void withoutA61GrpcJavaCallsThePrimaryAddressOnly() throws Exception {
    channel = channel();

    StatusRuntimeException failed =
        Awaitility.await("a call that fails on the primary address")
            .atMost(FIRST_ROUTE)
            .ignoreExceptions()
            .until(
                () -> failure(channel),
                f -> f != null && f.getStatus().getCode() != Status.Code.DEADLINE_EXCEEDED);

    System.out.println(
        "dual-stack interop: without A61 grpc-java fails with " + failed.getStatus());
    assertThat(failed.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(String.valueOf(failed.getStatus().getCause()))
        .as("refused on the primary address")
        .contains("/127.0.0.3:");
    assertThat(backends.get("pod-on-ipv6").calls().get()).isZero();
  }

  private ManagedChannel channel() throws Exception {
    return XdsBootstrap.write(dir, XdsAgent.serverUri(agent), "node-a", "zone-a").channel(TARGET);
  }

  private static StatusRuntimeException failure(ManagedChannel channel) {
    try {
      XdsBackends.who(channel, CALL_DEADLINE);
      return null;
    } catch (StatusRuntimeException e) {
      return e;
    }
  }

  /** One family's slice as the controller writes it: the pod cart-a, on node-a in zone-a. */
  private static EndpointSlice slice(String name, String family, String ip, int port) {
    EndpointSlice slice =
        XdsObjects.slice(
            "shop",
            name,
            "cart",
            port,
            List.of(new Slices.Pod("cart-a", ip, "node-a", "zone-a", Conditions.READY)));
    slice.setAddressType(family);
    return slice;
  }
}
