package dev.routesync.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.ContainerPortBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.ServicePortBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPort;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The tests' EndpointSlice controller writes what the real one writes, for the rules issue 9 relies
 * on: targetPort resolution per Pod, grouping by resolved ports ({@code "ports": null} for Pods
 * that resolve none), which Pods and Services count, the conditions, the labels, the uids.
 */
class SliceControllerTest {

  private static final Duration CONVERGE = Duration.ofSeconds(30);

  private MockCluster cluster;
  private KubernetesClient client;
  private SliceController controller;
  private PodDriver pods;

  @BeforeEach
  void start() {
    cluster = new MockCluster();
    client = cluster.client();
    pods = new PodDriver(client);
    controller = SliceController.start(cluster);
  }

  @AfterEach
  void stop() throws Exception {
    if (controller != null) {
      controller.close();
    }
    cluster.close();
  }

  // ---- builders --------------------------------------------------------------------------------

  static ContainerPort port(String name, int number) {
    return new ContainerPortBuilder().withName(name).withContainerPort(number).build();
  }

  static ContainerPort port(String name, int number, String protocol) {
    return new ContainerPortBuilder()
        .withName(name)
        .withContainerPort(number)
        .withProtocol(protocol)
        .build();
  }

  static Container container(String name, ContainerPort... ports) {
    return new ContainerBuilder().withName(name).withImage(name + ":1").withPorts(ports).build();
  }

  static Container sidecar(String name, ContainerPort... ports) {
    return new ContainerBuilder(container(name, ports)).withRestartPolicy("Always").build();
  }

  static PodSpec spec(Container... containers) {
    return new PodSpecBuilder().withContainers(containers).build();
  }

  static ServicePort servicePort(String name, int port, Object targetPort, String protocol) {
    ServicePortBuilder builder = new ServicePortBuilder().withName(name).withPort(port);
    if (targetPort != null) {
      builder.withTargetPort(new IntOrString(targetPort));
    }
    if (protocol != null) {
      builder.withProtocol(protocol);
    }
    return builder.build();
  }

  private Service service(String namespace, String name, String app, ServicePort... ports) {
    return client
        .resource(
            new ServiceBuilder()
                .withNewMetadata()
                .withNamespace(namespace)
                .withName(name)
                .addToLabels("mesh-managed", "true")
                .endMetadata()
                .withNewSpec()
                .addToSelector("app", app)
                .withPorts(ports)
                .endSpec()
                .build())
        .create();
  }

  private Pod pod(String namespace, String name, String app, PodSpec spec) {
    return pods.run(namespace, name, Map.of("app", app), spec, "node-a", true);
  }

  /**
   * A Service's slices as "ports -> endpoints", each endpoint as "pod ready/serving/terminating".
   * Ports are "name=port/protocol", "null" for a slice without ports.
   */
  private Map<String, List<String>> shape(String namespace, String service) {
    Map<String, List<String>> shape = new TreeMap<>();
    for (EndpointSlice slice : controller.slicesOf(namespace, service)) {
      List<String> endpoints = new ArrayList<>();
      if (slice.getEndpoints() != null) {
        for (Endpoint endpoint : slice.getEndpoints()) {
          endpoints.add(
              endpoint.getTargetRef().getName()
                  + " "
                  + flag("ready", endpoint.getConditions().getReady())
                  + flag("serving", endpoint.getConditions().getServing())
                  + flag("terminating", endpoint.getConditions().getTerminating()));
        }
      }
      endpoints.sort(null);
      shape.merge(
          ports(slice),
          endpoints,
          (a, b) -> Stream.concat(a.stream(), b.stream()).sorted().toList());
    }
    return shape;
  }

  private static String flag(String name, Boolean value) {
    return Boolean.TRUE.equals(value) ? "+" + name : "-" + name;
  }

  private static String ports(EndpointSlice slice) {
    if (slice.getPorts() == null) {
      return "null";
    }
    return String.join(
        ",",
        slice.getPorts().stream()
            .map(EndpointPort.class::cast)
            .map(p -> p.getName() + "=" + p.getPort() + "/" + p.getProtocol())
            .sorted()
            .toList());
  }

  private static final String READY = "+ready+serving-terminating";

  // ---- FindPort --------------------------------------------------------------------------------

  /** One case of targetPort resolution: a Service port, a Pod spec, the slice ports expected. */
  record PortCase(String name, ServicePort servicePort, PodSpec spec, String expectedPorts) {}

  static List<PortCase> findPortCases() {
    return List.of(
        new PortCase(
            "named",
            servicePort("web", 80, "http", null),
            spec(container("app", port("http", 8080))),
            "web=8080/TCP"),
        new PortCase(
            "named-protocol-must-match",
            servicePort("dns", 53, "dns", "UDP"),
            spec(container("app", port("dns", 5353))),
            "null"),
        new PortCase(
            "named-protocol-picks-among-same-names",
            servicePort("dns", 53, "dns", "UDP"),
            spec(
                container("tcp", port("dns", 5353, "TCP")),
                container("udp", port("dns", 5354, "UDP"))),
            "dns=5354/UDP"),
        new PortCase(
            "first-container-wins",
            servicePort("web", 80, "http", "TCP"),
            spec(container("one", port("http", 8080)), container("two", port("http", 9090))),
            "web=8080/TCP"),
        new PortCase(
            "first-port-in-a-container-wins",
            servicePort("web", 80, "http", null),
            spec(container("one", port("admin", 7000), port("http", 8081), port("http", 8082))),
            "web=8081/TCP"),
        new PortCase(
            "explicit-tcp-matches-default",
            servicePort("web", 80, "http", "TCP"),
            spec(container("app", port("http", 8080, "TCP"))),
            "web=8080/TCP"),
        new PortCase(
            "renamed-port-not-found",
            servicePort("web", 80, "http", null),
            spec(container("app", port("http-api", 8080))),
            "null"),
        new PortCase(
            "numeric-needs-no-declaration",
            servicePort("web", 80, 9000, null),
            spec(container("app")),
            "web=9000/TCP"),
        new PortCase(
            "omitted-is-the-service-port",
            servicePort("web", 80, null, null),
            spec(container("app", port("http", 8080))),
            "web=80/TCP"),
        new PortCase(
            "zero-is-the-service-port",
            servicePort("web", 81, 0, null),
            spec(container("app")),
            "web=81/TCP"),
        new PortCase(
            "empty-name-is-the-service-port",
            servicePort("web", 82, "", null),
            spec(container("app")),
            "web=82/TCP"),
        new PortCase(
            "restartable-init-container",
            servicePort("metrics", 9100, "metrics", null),
            new PodSpecBuilder(spec(container("app", port("http", 8080))))
                .withInitContainers(sidecar("proxy", port("metrics", 9101)))
                .build(),
            "metrics=9101/TCP"),
        new PortCase(
            "containers-before-sidecars",
            servicePort("metrics", 9100, "metrics", null),
            new PodSpecBuilder(spec(container("app", port("metrics", 9102))))
                .withInitContainers(sidecar("proxy", port("metrics", 9101)))
                .build(),
            "metrics=9102/TCP"),
        new PortCase(
            "plain-init-container-does-not-count",
            servicePort("metrics", 9100, "metrics", null),
            new PodSpecBuilder(spec(container("app")))
                .withInitContainers(container("setup", port("metrics", 9101)))
                .build(),
            "null"),
        new PortCase(
            "unnamed-service-port",
            servicePort(null, 80, "http", null),
            spec(container("app", port("http", 8080))),
            "=8080/TCP"));
  }

  @Test
  void resolvesTargetPortsPerPodAsFindPortDoes() {
    List<PortCase> cases = findPortCases();
    for (PortCase c : cases) {
      service("ports", c.name(), c.name(), c.servicePort());
      pod("ports", c.name() + "-pod", c.name(), c.spec());
    }
    controller.awaitSynced();

    Map<String, Map<String, List<String>>> actual = new LinkedHashMap<>();
    Map<String, Map<String, List<String>>> expected = new LinkedHashMap<>();
    for (PortCase c : cases) {
      actual.put(c.name(), shape("ports", c.name()));
      // Resolved or not, the Pod is listed, ready: without a port it is in a port-less slice.
      expected.put(c.name(), Map.of(c.expectedPorts(), List.of(c.name() + "-pod " + READY)));
    }
    assertThat(actual).isEqualTo(expected);
  }

  @Test
  void beforeKubernetes132SidecarPortsDoNotResolve() throws Exception {
    controller.close();
    controller = SliceController.start(cluster, false, 100);
    PortCase sidecar =
        findPortCases().stream()
            .filter(c -> c.name().equals("restartable-init-container"))
            .findFirst()
            .orElseThrow();
    service("ports", "sidecar", "sidecar", sidecar.servicePort());
    pod("ports", "sidecar-pod", "sidecar", sidecar.spec());
    controller.awaitSynced();

    assertThat(shape("ports", "sidecar"))
        .isEqualTo(Map.of("null", List.of("sidecar-pod " + READY)));
  }

  @Test
  void aPodMissingOneOfTwoPortsIsListedWithTheOtherOnly() {
    service(
        "shop",
        "web",
        "web",
        servicePort("http", 80, "http", null),
        servicePort("metrics", 9100, "metrics", null));
    pod("shop", "both", "web", spec(container("app", port("http", 8080), port("metrics", 9100))));
    pod("shop", "http-only", "web", spec(container("app", port("http", 8080))));
    pod("shop", "http-only-elsewhere", "web", spec(container("app", port("http", 8090))));
    pod("shop", "neither", "web", spec(container("app", port("grpc", 9000))));
    controller.awaitSynced();

    assertThat(shape("shop", "web"))
        .isEqualTo(
            Map.of(
                "http=8080/TCP,metrics=9100/TCP", List.of("both " + READY),
                "http=8080/TCP", List.of("http-only " + READY),
                "http=8090/TCP", List.of("http-only-elsewhere " + READY),
                "null", List.of("neither " + READY)));
  }

  // ---- the incident ----------------------------------------------------------------------------

  private static final Workload QUOTE = SeedIncident.deployment();

  @Test
  void theIncidentRenameListsEveryNewPodReadyInAPortlessSlice() {
    client.resource(SeedIncident.service()).create();
    pods.deploy(QUOTE, 8, "node-a");
    controller.awaitSynced();
    assertThat(shape("prod", "quote").keySet()).containsExactly("http=8080/TCP");
    assertThat(shape("prod", "quote").get("http=8080/TCP"))
        .hasSize(8)
        .allMatch(e -> e.endsWith(READY));

    Rollout rollout = pods.rollout(QUOTE, SeedIncident.renamed(), "node-b", 8, 2, 2);

    // First surge: two new Pods, Ready, listed ready without ports; the old eight still serve.
    Rollout.Step surge = rollout.step();
    assertThat(surge.kind()).isEqualTo(Rollout.Kind.SURGE);
    controller.awaitSynced();
    Map<String, List<String>> shape = shape("prod", "quote");
    assertThat(shape.get("null"))
        .containsExactlyInAnyOrderElementsOf(
            surge.pods().stream().map(p -> p.getMetadata().getName() + " " + READY).toList());
    assertThat(shape.get("http=8080/TCP")).hasSize(8).allMatch(e -> e.endsWith(READY));

    // Two old Pods terminate: still listed, not ready, serving, terminating.
    Rollout.Step terminate = rollout.step();
    assertThat(terminate.kind()).isEqualTo(Rollout.Kind.TERMINATE);
    controller.awaitSynced();
    shape = shape("prod", "quote");
    assertThat(shape.get("http=8080/TCP"))
        .hasSize(8)
        .filteredOn(e -> e.endsWith("-ready+serving+terminating"))
        .hasSize(2);
    assertThat(shape.get("http=8080/TCP")).filteredOn(e -> e.endsWith(READY)).hasSize(6);

    assertThat(rollout.step().kind()).isEqualTo(Rollout.Kind.REMOVE);
    controller.awaitSynced();
    assertThat(shape("prod", "quote").get("http=8080/TCP")).hasSize(6);

    rollout.finish();
    controller.awaitSynced();
    // The end of the incident: eight ready endpoints, no ports, no slice with the port at all.
    shape = shape("prod", "quote");
    assertThat(shape.keySet()).containsExactly("null");
    assertThat(shape.get("null"))
        .containsExactlyInAnyOrderElementsOf(
            rollout.newPods().stream().map(p -> p.getMetadata().getName() + " " + READY).toList());
    // As the API server returns it: "ports": null, not [] and not absent.
    EndpointSlice slice = controller.slicesOf("prod", "quote").get(0);
    String raw =
        client.raw(
            "/apis/discovery.k8s.io/v1/namespaces/prod/endpointslices/"
                + slice.getMetadata().getName());
    assertThat(raw).contains("\"ports\":null");
    assertThat(slice.getPorts()).isNull();
  }

  @Test
  void aNormalRolloutKeepsThePortAndEndsWithTheNewPods() {
    client.resource(SeedIncident.service()).create();
    pods.deploy(QUOTE, 8, "node-a");
    Rollout rollout = pods.rollout(QUOTE, SeedIncident.nextImage(), "node-b", 8, 2, 2);
    List<Rollout.Kind> kinds = rollout.finish().stream().map(Rollout.Step::kind).toList();
    controller.awaitSynced();

    assertThat(kinds)
        .containsExactlyElementsOf(
            Stream.generate(
                    () -> List.of(Rollout.Kind.SURGE, Rollout.Kind.TERMINATE, Rollout.Kind.REMOVE))
                .limit(4)
                .flatMap(List::stream)
                .toList());
    assertThat(shape("prod", "quote"))
        .isEqualTo(
            Map.of(
                "http=8080/TCP",
                rollout.newPods().stream()
                    .map(p -> p.getMetadata().getName() + " " + READY)
                    .sorted()
                    .toList()));
  }

  @Test
  void fixingTheServicesTargetPortTurnsThePortlessSliceBackIntoAPortSlice() {
    client.resource(SeedIncident.service()).create();
    pods.deploy(SeedIncident.renamed(), 8, "node-a");
    controller.awaitSynced();
    EndpointSlice portless = controller.slicesOf("prod", "quote").get(0);
    assertThat(portless.getPorts()).isNull();

    client
        .services()
        .inNamespace("prod")
        .withName("quote")
        .edit(
            s ->
                new ServiceBuilder(s)
                    .editSpec()
                    .editFirstPort()
                    .withTargetPort(new IntOrString("http-api"))
                    .endPort()
                    .endSpec()
                    .build());
    controller.awaitSynced();

    // The slice that would be deleted is reused for the one that would be created (finalize).
    assertThat(controller.slicesOf("prod", "quote"))
        .singleElement()
        .satisfies(
            slice -> {
              assertThat(slice.getMetadata().getName()).isEqualTo(portless.getMetadata().getName());
              assertThat(ports(slice)).isEqualTo("http=8080/TCP");
              assertThat(slice.getEndpoints()).hasSize(8);
            });
  }

  @Test
  void aPausedControllerLagsAndCatchesUpOnResume() {
    service("shop", "web", "web", servicePort("http", 80, "http", null));
    pod("shop", "web-1", "web", spec(container("app", port("http", 8080))));
    controller.awaitSynced();

    controller.pause();
    pod("shop", "web-2", "web", spec(container("app", port("http", 8080))));
    await()
        .atMost(CONVERGE)
        .until(() -> client.pods().inNamespace("shop").withName("web-2").get() != null);
    // Ready, and not an endpoint: what a drift detector calls NotInEndpoints.
    assertThat(shape("shop", "web")).isEqualTo(Map.of("http=8080/TCP", List.of("web-1 " + READY)));

    controller.resume();
    await()
        .atMost(CONVERGE)
        .until(
            () ->
                shape("shop", "web")
                    .equals(Map.of("http=8080/TCP", List.of("web-1 " + READY, "web-2 " + READY))));
  }

  // ---- which Pods and Services ------------------------------------------------------------------

  @Test
  void terminalPodsAndPodsWithoutAnIpAreLeftOut() {
    service("shop", "web", "web", servicePort("http", 80, 8080, null));
    PodSpec spec = spec(container("app"));
    pod("shop", "running", "web", spec);
    pods.setPhase(pod("shop", "succeeded", "web", spec), "Succeeded");
    pods.setPhase(pod("shop", "failed", "web", spec), "Failed");
    Pod notReady = pods.run("shop", "not-ready", Map.of("app", "web"), spec, "node-a", false);
    client
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withNamespace("shop")
                .withName("pending")
                .addToLabels("app", "web")
                .endMetadata()
                .withSpec(spec)
                .withNewStatus()
                .withPhase("Pending")
                .endStatus()
                .build())
        .create();
    pod("shop", "other-app", "cart", spec);
    pod("other", "other-namespace", "web", spec);
    controller.awaitSynced();

    assertThat(shape("shop", "web"))
        .isEqualTo(
            Map.of(
                "http=8080/TCP",
                List.of(
                    notReady.getMetadata().getName() + " -ready-serving-terminating",
                    "running " + READY)));
  }

  @Test
  void publishNotReadyAddressesMakesEveryListedPodReady() {
    client
        .resource(
            new ServiceBuilder()
                .withNewMetadata()
                .withNamespace("shop")
                .withName("peers")
                .endMetadata()
                .withNewSpec()
                .withClusterIP("None")
                .withPublishNotReadyAddresses(true)
                .addToSelector("app", "db")
                .withPorts(servicePort("peer", 7000, "peer", null))
                .endSpec()
                .build())
        .create();
    PodSpec spec = spec(container("db", port("peer", 7000)));
    pods.run("shop", "db-0", Map.of("app", "db"), spec, "node-a", false);
    pods.startTerminating(pods.run("shop", "db-1", Map.of("app", "db"), spec, "node-a", true));
    // A Pod on a Node that does not exist is still published (it is left out otherwise).
    Pod ghost = pods.run("shop", "db-2", Map.of("app", "db"), spec, "node-gone", true);
    client.nodes().withName("node-gone").delete();
    pods.setPhase(pods.run("shop", "db-3", Map.of("app", "db"), spec, "node-a", true), "Failed");
    controller.awaitSynced();

    assertThat(shape("shop", "peers"))
        .isEqualTo(
            Map.of(
                "peer=7000/TCP",
                List.of(
                    "db-0 +ready-serving-terminating",
                    "db-1 +ready+serving+terminating",
                    ghost.getMetadata().getName() + " " + READY)));
    assertThat(controller.slicesOf("shop", "peers").get(0).getMetadata().getLabels())
        .containsEntry("service.kubernetes.io/headless", "");
  }

  @Test
  void podsOnNodesThatDoNotExistAreLeftOutUntilTheNodeRegisters() {
    service("shop", "web", "web", servicePort("http", 80, 8080, null));
    pod("shop", "on-a", "web", spec(container("app")));
    pods.run("shop", "on-c", Map.of("app", "web"), spec(container("app")), "node-c", true);
    client.nodes().withName("node-c").delete();
    controller.awaitSynced();
    assertThat(shape("shop", "web")).isEqualTo(Map.of("http=8080/TCP", List.of("on-a " + READY)));

    pods.node("node-c", "zone-c");
    controller.awaitSynced();
    assertThat(shape("shop", "web"))
        .isEqualTo(Map.of("http=8080/TCP", List.of("on-a " + READY, "on-c " + READY)));
    Endpoint onC =
        controller.slicesOf("shop", "web").get(0).getEndpoints().stream()
            .filter(e -> e.getTargetRef().getName().equals("on-c"))
            .findFirst()
            .orElseThrow();
    assertThat(onC.getZone()).isEqualTo("zone-c");
    assertThat(onC.getNodeName()).isEqualTo("node-c");
  }

  @Test
  void servicesWithoutSelectorAndExternalNameServicesGetNoSlicesAndAnEmptyServiceAPlaceholder() {
    client
        .resource(
            new ServiceBuilder()
                .withNewMetadata()
                .withNamespace("shop")
                .withName("external")
                .endMetadata()
                .withNewSpec()
                .withType("ExternalName")
                .withExternalName("db.example.com")
                .addToSelector("app", "web")
                .endSpec()
                .build())
        .create();
    client
        .resource(
            new ServiceBuilder()
                .withNewMetadata()
                .withNamespace("shop")
                .withName("manual")
                .endMetadata()
                .withNewSpec()
                .withPorts(servicePort("http", 80, 8080, null))
                .endSpec()
                .build())
        .create();
    service("shop", "empty", "nobody", servicePort("http", 80, 8080, null));
    pod("shop", "web-1", "web", spec(container("app")));
    controller.awaitSynced();

    assertThat(controller.slicesOf("shop", "external")).isEmpty();
    assertThat(controller.slicesOf("shop", "manual")).isEmpty();
    List<EndpointSlice> placeholder = controller.slicesOf("shop", "empty");
    assertThat(placeholder).hasSize(1);
    assertThat(placeholder.get(0).getPorts()).isNull();
    assertThat(placeholder.get(0).getEndpoints()).isNull();
  }

  // ---- what the slices carry --------------------------------------------------------------------

  @Test
  void slicesCarryTheControllersLabelsTheServicesLabelsAnOwnerAndTheMocksUids() {
    Service web = service("shop", "web", "web", servicePort("http", 80, "http", null));
    client
        .services()
        .inNamespace("shop")
        .withName("web")
        .edit(
            s ->
                new ServiceBuilder(s)
                    .editMetadata()
                    .addToLabels("team", "payments")
                    // Reserved: not copied from a Service.
                    .addToLabels("endpointslice.kubernetes.io/managed-by", "someone-else")
                    .endMetadata()
                    .build());
    Pod sent =
        new PodBuilder()
            .withNewMetadata()
            .withNamespace("shop")
            .withName("web-1")
            .withUid("uid-the-test-made-up")
            .addToLabels("app", "web")
            .endMetadata()
            .withSpec(spec(container("app", port("http", 8080))))
            .build();
    Pod stored = pods.run("shop", "web-1", Map.of("app", "web"), sent.getSpec(), "node-a", true);
    controller.awaitSynced();

    EndpointSlice slice = controller.slicesOf("shop", "web").get(0);
    assertThat(slice.getMetadata().getName()).matches("web-[bcdfghjklmnpqrstvwxz2456789]{5}");
    assertThat(slice.getMetadata().getLabels())
        .isEqualTo(
            Map.of(
                "kubernetes.io/service-name", "web",
                "endpointslice.kubernetes.io/managed-by", "endpointslice-controller.k8s.io",
                "mesh-managed", "true",
                "team", "payments"));
    assertThat(slice.getMetadata().getAnnotations())
        .containsKey("endpoints.kubernetes.io/last-change-trigger-time");
    assertThat(slice.getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(
            owner -> {
              assertThat(owner.getKind()).isEqualTo("Service");
              assertThat(owner.getUid()).isEqualTo(web.getMetadata().getUid());
              assertThat(owner.getController()).isTrue();
            });
    assertThat(slice.getAddressType()).isEqualTo("IPv4");
    Endpoint endpoint = slice.getEndpoints().get(0);
    assertThat(endpoint.getAddresses()).containsExactly(stored.getStatus().getPodIP());
    assertThat(endpoint.getNodeName()).isEqualTo("node-a");
    assertThat(endpoint.getZone()).isNull(); // node-a was registered without a zone
    assertThat(endpoint.getTargetRef().getKind()).isEqualTo("Pod");
    assertThat(endpoint.getTargetRef().getNamespace()).isEqualTo("shop");
    assertThat(endpoint.getTargetRef().getName()).isEqualTo("web-1");
    assertThat(endpoint.getTargetRef().getUid())
        .isEqualTo(stored.getMetadata().getUid())
        .isNotEqualTo("uid-the-test-made-up")
        .isNotBlank();
  }

  @Test
  void aServicesLabelChangesReachItsSlicesInPlace() {
    service("shop", "web", "web", servicePort("http", 80, "http", null));
    pod("shop", "web-1", "web", spec(container("app", port("http", 8080))));
    controller.awaitSynced();
    String name = controller.slicesOf("shop", "web").get(0).getMetadata().getName();

    // The opt-in label goes: the slice loses it too (an agent's label-selected watch sees the
    // slice go), in place.
    client
        .services()
        .inNamespace("shop")
        .withName("web")
        .edit(
            s ->
                new ServiceBuilder(s)
                    .editMetadata()
                    .removeFromLabels("mesh-managed")
                    .addToLabels("tier", "front")
                    .endMetadata()
                    .build());
    controller.awaitSynced();

    assertThat(controller.slicesOf("shop", "web"))
        .singleElement()
        .satisfies(
            slice -> {
              assertThat(slice.getMetadata().getName()).isEqualTo(name);
              assertThat(slice.getMetadata().getLabels())
                  .doesNotContainKey("mesh-managed")
                  .containsEntry("tier", "front");
            });
    assertThat(
            client
                .discovery()
                .v1()
                .endpointSlices()
                .inNamespace("shop")
                .withLabel("mesh-managed", "true")
                .list()
                .getItems())
        .isEmpty();
  }

  @Test
  void aDualStackServiceGetsASlicePerFamilyWithThatFamilysAddresses() {
    client
        .resource(
            new ServiceBuilder()
                .withNewMetadata()
                .withNamespace("shop")
                .withName("web")
                .endMetadata()
                .withNewSpec()
                .withIpFamilies("IPv4", "IPv6")
                .addToSelector("app", "web")
                .withPorts(servicePort("http", 80, 8080, null))
                .endSpec()
                .build())
        .create();
    Pod pod = pod("shop", "web-1", "web", spec(container("app")));
    String v4 = pod.getStatus().getPodIP();
    client
        .pods()
        .inNamespace("shop")
        .withName("web-1")
        .editStatus(
            p ->
                new PodBuilder(p)
                    .editStatus()
                    .addNewPodIP()
                    .withIp("fd00:10:244::1")
                    .endPodIP()
                    .endStatus()
                    .build());
    controller.awaitSynced();

    Map<String, List<String>> addresses = new TreeMap<>();
    for (EndpointSlice slice : controller.slicesOf("shop", "web")) {
      addresses.put(slice.getAddressType(), slice.getEndpoints().get(0).getAddresses());
    }
    assertThat(addresses).isEqualTo(Map.of("IPv4", List.of(v4), "IPv6", List.of("fd00:10:244::1")));
  }

  @Test
  void writesOnlyWhatChangedAndUpdatesSlicesInPlace() {
    service("shop", "web", "web", servicePort("http", 80, "http", null));
    Pod first = pod("shop", "web-1", "web", spec(container("app", port("http", 8080))));
    pod("shop", "web-2", "web", spec(container("app", port("http", 8080))));
    controller.awaitSynced();
    String name = controller.slicesOf("shop", "web").get(0).getMetadata().getName();
    long writes = controller.writes();

    controller.awaitSynced();
    assertThat(controller.writes()).isEqualTo(writes);

    pods.setReady(first, false);
    controller.awaitSynced();
    assertThat(controller.writes()).isEqualTo(writes + 1);
    assertThat(controller.slicesOf("shop", "web"))
        .singleElement()
        .satisfies(s -> assertThat(s.getMetadata().getName()).isEqualTo(name));
    assertThat(shape("shop", "web"))
        .isEqualTo(
            Map.of("http=8080/TCP", List.of("web-1 -ready-serving-terminating", "web-2 " + READY)));
  }

  @Test
  void honoursMaxEndpointsPerSlice() throws Exception {
    controller.close();
    controller = SliceController.start(cluster, true, 3);
    service("shop", "web", "web", servicePort("http", 80, 8080, null));
    for (int i = 1; i <= 7; i++) {
      pod("shop", "web-" + i, "web", spec(container("app")));
    }
    controller.awaitSynced();

    // How the seven spread depends on the order the Pods came in (as in a real cluster); that
    // no slice holds more than three does not.
    List<Integer> sizes =
        controller.slicesOf("shop", "web").stream().map(s -> s.getEndpoints().size()).toList();
    assertThat(sizes).allMatch(size -> size <= 3);
    assertThat(sizes.stream().mapToInt(Integer::intValue).sum()).isEqualTo(7);
    assertThat(shape("shop", "web").get("http=8080/TCP")).hasSize(7);
  }

  // ---- following the cluster by itself ----------------------------------------------------------

  @Test
  void aSliceDeletedByAnyoneElseComesBackEvenWhenItsLastWriteWasTheControllersOwn() {
    // The mock's DELETED carries the resourceVersion of the last write (it bumps none on a delete),
    // and the watch event of a write can arrive before the write's own response. A controller that
    // took a DELETED with a version it wrote itself for its own doing left the slice deleted
    // (1 CI run in ~20); a deletion now always puts the Service's slices right again.
    service("shop", "web", "web", servicePort("http", 80, "http", null));
    for (int i = 1; i <= 25; i++) {
      pod("shop", "web-" + i, "web", spec(container("app", port("http", 8080))));
      int ready = i;
      await()
          .atMost(CONVERGE)
          .until(
              () -> shape("shop", "web").getOrDefault("http=8080/TCP", List.of()).size() == ready);
      String name = controller.slicesOf("shop", "web").get(0).getMetadata().getName();
      client.discovery().v1().endpointSlices().inNamespace("shop").withName(name).delete();
      await()
          .atMost(CONVERGE)
          .until(
              () -> shape("shop", "web").getOrDefault("http=8080/TCP", List.of()).size() == ready);
    }
  }

  @Test
  void followsTheWatchesWithoutBeingAskedAndCleansUpAfterADeletedService() {
    service("shop", "web", "web", servicePort("http", 80, "http", null));
    Pod pod = pod("shop", "web-1", "web", spec(container("app", port("http", 8080))));
    await()
        .atMost(CONVERGE)
        .until(
            () -> shape("shop", "web").equals(Map.of("http=8080/TCP", List.of("web-1 " + READY))));

    pods.startTerminating(pod);
    await()
        .atMost(CONVERGE)
        .until(
            () ->
                shape("shop", "web")
                    .equals(Map.of("http=8080/TCP", List.of("web-1 -ready+serving+terminating"))));

    pods.finishTermination(pod);
    await().atMost(CONVERGE).until(() -> shape("shop", "web").equals(Map.of("null", List.of())));

    // A slice deleted behind the controller's back comes back.
    String placeholder = controller.slicesOf("shop", "web").get(0).getMetadata().getName();
    client.discovery().v1().endpointSlices().inNamespace("shop").withName(placeholder).delete();
    await().atMost(CONVERGE).until(() -> controller.slicesOf("shop", "web").size() == 1);

    // The garbage collector's part (a separate controller in a real cluster) is a sweep, not a
    // watch event: waiting for the Services watch's DELETED failed twice in loaded runs, when the
    // mock's event loop stalled (STACK-NOTES), so the sweep is asked for.
    client.services().inNamespace("shop").withName("web").delete();
    controller.awaitSynced();
    assertThat(controller.slicesOf("shop", "web")).isEmpty();
  }
}
