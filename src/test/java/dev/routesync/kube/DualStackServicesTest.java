package dev.routesync.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.routesync.table.Endpoint;
import dev.routesync.table.ServiceEndpoints;
import dev.routesync.testing.AgentHarness;
import dev.routesync.testing.MockCluster;
import dev.routesync.testing.PodDriver;
import dev.routesync.testing.SliceController;
import dev.routesync.testing.UdsHttp;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ContainerPortBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServicePortBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.vertx.core.json.JsonArray;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Dual-stack Services end to end against the mock API server, with slices written by the model of
 * the EndpointSlice controller (one slice per address family, {@code nodeName}, {@code zone} and a
 * {@code targetRef} on every endpoint): each pod is one endpoint in the agent's table, its
 * addresses in the order of the Service's {@code ipFamilies}.
 */
@Timeout(60)
class DualStackServicesTest {

  private static final Duration FOLLOW = Duration.ofSeconds(10);

  private MockCluster cluster;
  private SliceController controller;
  private PodDriver pods;
  private AgentHarness agent;
  private int ipv6Suffix;

  @BeforeEach
  void start() {
    cluster = new MockCluster();
    controller = SliceController.start(cluster);
    pods = new PodDriver(cluster.client());
    pods.node("node-a", "zone-a");
  }

  @AfterEach
  void stop() throws Exception {
    if (agent != null) {
      agent.close();
    }
    if (controller != null) {
      controller.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void eachPodIsOneEndpointWithItsAddressesInTheServicesFamilyOrder() throws Exception {
    service("web", "IPv6", "IPv4");
    service("api", "IPv4", "IPv6");
    Pod web1 = dualStackPod("web-1", "web");
    Pod web2 = dualStackPod("web-2", "web");
    Pod api1 = dualStackPod("api-1", "api");
    controller.awaitSynced();
    assertThat(controller.slicesOf("shop", "web"))
        .as("the controller's model writes one slice per family")
        .extracting(EndpointSlice::getAddressType)
        .containsExactlyInAnyOrder("IPv4", "IPv6");
    agent = AgentHarness.start(cluster.url());
    UdsHttp registry = new UdsHttp(agent.socket());

    // Both Services in the table (each slice of each family has arrived).
    await().atMost(FOLLOW).until(() -> endpoints("web").size() >= 2 && !endpoints("api").isEmpty());
    await().atMost(FOLLOW).until(() -> endpoints("web").size() == 2);
    assertThat(endpoints("web"))
        .as("one endpoint per pod, its IPv6 address first")
        .extracting(Endpoint::pod, Endpoint::ip)
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple("web-1", ipv6(web1)),
            org.assertj.core.groups.Tuple.tuple("web-2", ipv6(web2)));
    assertThat(endpoints("api"))
        .as("one endpoint, its IPv4 address first")
        .singleElement()
        .satisfies(
            api -> {
              assertThat(api.ip()).isEqualTo(ipv4(api1));
              assertThat(api.node()).isEqualTo("node-a");
              assertThat(api.zone()).isEqualTo("zone-a");
              assertThat(api.ready()).isTrue();
            });
    // The Registry lists every address, in the Service's family order.
    assertThat(addresses(registry, "web"))
        .containsExactlyInAnyOrder(
            List.of(ipv6(web1), ipv4(web1)), List.of(ipv6(web2), ipv4(web2)));
    assertThat(addresses(registry, "api")).containsExactly(List.of(ipv4(api1), ipv6(api1)));

    // web-1 fails its readiness probe: the controller rewrites both slices; the pod leaves whole.
    pods.setReady(web1, false);
    await()
        .atMost(FOLLOW)
        .until(
            () -> endpoints("web").stream().map(Endpoint::pod).toList().equals(List.of("web-2")));
    assertThat(addresses(registry, "web")).containsExactly(List.of(ipv6(web2), ipv4(web2)));
  }

  /** Each endpoint's {@code addresses} as {@code GET /v1/services/shop/NAME} lists them. */
  private static List<List<Object>> addresses(UdsHttp registry, String service) throws Exception {
    UdsHttp.Reply reply = registry.get("/v1/services/shop/" + service);
    assertThat(reply.status()).as(reply.body()).isEqualTo(200);
    JsonArray endpoints = reply.json().getJsonArray("endpoints");
    List<List<Object>> all = new java.util.ArrayList<>();
    for (int i = 0; i < endpoints.size(); i++) {
      JsonArray addresses = endpoints.getJsonObject(i).getJsonArray("addresses");
      all.add(addresses == null ? List.of() : addresses.getList());
    }
    return all;
  }

  private List<Endpoint> endpoints(String service) {
    Optional<ServiceEndpoints> entry = agent.service("shop", service);
    return entry.map(ServiceEndpoints::endpoints).orElse(List.of());
  }

  private void service(String name, String... ipFamilies) {
    cluster
        .client()
        .resource(
            new ServiceBuilder()
                .withNewMetadata()
                .withNamespace("shop")
                .withName(name)
                .addToLabels("mesh-managed", "true")
                .endMetadata()
                .withNewSpec()
                .withIpFamilies(ipFamilies)
                .withIpFamilyPolicy(ipFamilies.length == 2 ? "RequireDualStack" : null)
                .addToSelector("app", name)
                .withPorts(
                    new ServicePortBuilder()
                        .withName("http")
                        .withPort(80)
                        .withTargetPort(new IntOrString(8080))
                        .withProtocol("TCP")
                        .build())
                .endSpec()
                .build())
        .create();
  }

  /** A ready pod on node-a with an IPv4 address (the driver's) and an IPv6 one, as a kubelet. */
  private Pod dualStackPod(String name, String app) {
    PodSpec spec =
        new PodSpecBuilder()
            .withContainers(
                new ContainerBuilder()
                    .withName("app")
                    .withImage("app:1")
                    .withPorts(
                        new ContainerPortBuilder().withName("http").withContainerPort(8080).build())
                    .build())
            .build();
    Pod pod = pods.run("shop", name, Map.of("app", app), spec, "node-a", true);
    String ipv6 = "fd00:10:244::" + Integer.toHexString(++ipv6Suffix);
    return cluster
        .client()
        .pods()
        .inNamespace("shop")
        .withName(name)
        .editStatus(
            p ->
                new PodBuilder(p)
                    .editStatus()
                    .addNewPodIP()
                    .withIp(ipv6)
                    .endPodIP()
                    .endStatus()
                    .build());
  }

  private static String ipv4(Pod pod) {
    return pod.getStatus().getPodIPs().get(0).getIp();
  }

  private static String ipv6(Pod pod) {
    return pod.getStatus().getPodIPs().get(1).getIp();
  }
}
