package dev.routesync.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.ResourceRule;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectRulesReviewBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * B4: the install as shipped, against a real API server with RBAC on. {@code kubectl apply -k
 * daemonset/base} passes strict server-side validation, and so do the overlays and the examples
 * (server dry run); the agent then runs with nothing but a TokenRequest token of {@code
 * routesync/routesync} and syncs, writes its drift Events (create, and patch when it adopts an
 * existing one), and logs no refusal; the same token is refused everything the agent does not need.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class RbacAsShippedIT {

  private static final String APP = "web";

  /**
   * The ClusterRole's grants, as the API server reports them for the token: what the agent needs
   * (docs/security.md, "Who may reach what") and no more. A grant added to rbac.yaml fails this
   * until it is added here, on purpose: widening the agent's identity is a reviewed decision.
   */
  private static final Set<String> GRANTED =
      Set.of(
          "discovery.k8s.io/endpointslices:list",
          "discovery.k8s.io/endpointslices:watch",
          "/services:list",
          "/services:watch",
          "/pods:list",
          "/pods:watch",
          "/nodes:get",
          "events.k8s.io/events:create",
          "events.k8s.io/events:patch");

  @TempDir Path dir;
  private ControlPlane cluster;
  private KubernetesClient admin;
  private ShippedInstall install;
  private String namespace;

  @BeforeEach
  void setUp() {
    cluster = ControlPlane.require();
    admin = cluster.adminClient();
    install = new ShippedInstall(cluster);
    install.remove(); // a previous run that died before its clean-up
    String applied = install.apply();
    assertThat(applied)
        .contains(
            "namespace/routesync created",
            "serviceaccount/routesync created",
            "clusterrole.rbac.authorization.k8s.io/routesync created",
            "clusterrolebinding.rbac.authorization.k8s.io/routesync created",
            "daemonset.apps/routesync created");
    namespace = Workloads.namespace(admin, "rbac");
  }

  @AfterEach
  void tearDown() {
    if (admin != null) {
      if (namespace != null) {
        cluster.kubectl("delete", "namespace", namespace, "--wait=false");
      }
      cluster.kubectl("delete", "namespace", "routesync-example", "--ignore-not-found");
      install.remove();
      admin.close();
    }
  }

  @Test
  void everyOverlayAndTheExamplesPassServerSideValidation() throws Exception {
    List<Path> overlays;
    try (Stream<Path> dirs = Files.list(cluster.project().resolve("daemonset/overlays"))) {
      overlays = dirs.filter(Files::isDirectory).sorted().toList();
    }
    assertThat(overlays).isNotEmpty();
    for (Path overlay : overlays) {
      serverDryRun(overlay);
    }
    // The examples live in a namespace of their own, which a dry run does not create, and every
    // namespaced object of theirs would be refused for it: create it for real first.
    Path examples = cluster.project().resolve("daemonset/examples");
    cluster.kubectl("apply", "-f", examples.resolve("namespace.yaml").toString());
    serverDryRun(examples);
    // The Prometheus Operator's kinds are not served here (no CRDs): only check that it renders.
    ControlPlane.Result monitoring =
        cluster.kubectlResult(
            "kustomize", cluster.project().resolve("daemonset/monitoring").toString());
    assertThat(monitoring.exitCode()).as("%s", monitoring).isZero();
    assertThat(monitoring.stdout()).contains("kind: PodMonitor", "kind: PrometheusRule");
  }

  private void serverDryRun(Path kustomization) {
    ControlPlane.Result result =
        cluster.kubectlResult(
            "apply", "-k", kustomization.toString(), "--dry-run=server", "--validate=strict");
    assertThat(result.exitCode()).as("server dry run of %s:\n%s", kustomization, result).isZero();
    assertThat(result.stdout()).contains("(server dry run)");
    assertThat(ShippedInstall.warnings(result.stderr()))
        .as("warnings of %s", kustomization)
        .allMatch(line -> line.startsWith("Warning: would violate PodSecurity \"restricted"));
  }

  @Test
  void theAgentSyncsWithTheShippedServiceAccountAlone() throws Exception {
    ServiceAccountIdentity identity =
        ServiceAccountIdentity.request(
            cluster, ShippedInstall.NAMESPACE, ShippedInstall.SERVICE_ACCOUNT, dir);
    admin.services().resource(Workloads.service(namespace, APP)).create();
    // A second opted-in Service over the same pods whose targetPort no container declares: the
    // drift detector reports the pods at once, which makes the agent write Events.
    admin.services().resource(misnamed(namespace)).create();
    admin
        .apps()
        .deployments()
        .resource(Workloads.onNode(Workloads.deployment(namespace, APP, 2, "http"), "node-0"))
        .create();
    Workloads.awaitRolledOut(admin, namespace, APP, Duration.ofMinutes(1));
    Set<String> pods = ReadySets.fromPods(admin, namespace, APP, 8080);
    assertThat(pods).hasSize(2);

    // Every namespace, as the shipped ConfigMap (ROUTESYNC_NAMESPACE empty): cluster-wide lists.
    try (AgentProcess first =
        AgentProcess.start(cluster, dir.resolve("first"), identity.kubeconfig(), "")) {
      first.awaitReady();
      await()
          .atMost(Duration.ofSeconds(15))
          .pollInterval(Duration.ofMillis(200))
          .ignoreExceptions()
          .untilAsserted(
              () ->
                  assertThat(ReadySets.fromAgent(first.grpc().resolve(namespace, APP)))
                      .isEqualTo(pods));
      await()
          .atMost(Duration.ofSeconds(15))
          .pollInterval(Duration.ofMillis(200))
          .until(
              () -> first.metric("routesync_kubernetes_events_total", "result=\"created\"") >= 2);
      assertThat(driftEvents()).as("the drift Events in the API server").hasSize(2);
      assertNoRefusal(first);
    }

    // A second agent (a restarted pod) finds the Events already there (409) and adopts them: it
    // reads each with an empty merge patch and patches its series. This is the patch verb.
    try (AgentProcess second =
        AgentProcess.start(cluster, dir.resolve("second"), identity.kubeconfig(), "")) {
      second.awaitReady();
      await()
          .atMost(Duration.ofSeconds(15))
          .pollInterval(Duration.ofMillis(200))
          .until(
              () -> second.metric("routesync_kubernetes_events_total", "result=\"updated\"") >= 2);
      assertThat(driftEvents())
          .as("the adopted Events' series")
          .allSatisfy(e -> assertThat(e.getSeries().getCount()).isEqualTo(2));
      assertNoRefusal(second);
    }
  }

  private static Service misnamed(String namespace) {
    Service service = Workloads.service(namespace, "misnamed");
    return new ServiceBuilder(service)
        .editSpec()
        .withSelector(Map.of("app", APP))
        .editFirstPort()
        .withTargetPort(new IntOrString("no-such-port"))
        .endPort()
        .endSpec()
        .build();
  }

  private List<io.fabric8.kubernetes.api.model.events.v1.Event> driftEvents() {
    return admin.events().v1().events().inNamespace(namespace).list().getItems().stream()
        .filter(e -> "PodNotInServiceEndpoints".equals(e.getReason()))
        .toList();
  }

  /** Whatever the agent did, the ClusterRole allowed: a refusal would be logged and counted. */
  private static void assertNoRefusal(AgentProcess agent) throws Exception {
    assertThat(agent.metric("routesync_kubernetes_events_total", "result=\"failed\""))
        .as("Events the API server refused or failed")
        .isZero();
    assertThat(agent.log().toLowerCase()).doesNotContain("forbidden");
  }

  @Test
  void theShippedIdentityIsRefusedWhatTheAgentDoesNotNeed() throws Exception {
    ServiceAccountIdentity identity =
        ServiceAccountIdentity.request(
            cluster, ShippedInstall.NAMESPACE, ShippedInstall.SERVICE_ACCOUNT, dir);
    admin
        .secrets()
        .resource(
            new SecretBuilder()
                .withNewMetadata()
                .withNamespace(namespace)
                .withName("s")
                .endMetadata()
                .withStringData(Map.of("k", "v"))
                .build())
        .create();
    admin
        .configMaps()
        .resource(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withNamespace(namespace)
                .withName("c")
                .endMetadata()
                .build())
        .create();
    admin.services().resource(Workloads.service(namespace, APP)).create();
    admin.apps().deployments().resource(Workloads.deployment(namespace, APP, 1, "http")).create();
    Workloads.awaitRolledOut(admin, namespace, APP, Duration.ofMinutes(1));
    String pod =
        admin.pods().inNamespace(namespace).list().getItems().get(0).getMetadata().getName();
    String slice = ReadySets.slices(admin, namespace, APP).get(0).getMetadata().getName();

    try (KubernetesClient token = identity.client(cluster)) {
      // The positive control: the same client does what the agent needs, so a 403 below is RBAC's.
      assertThat(token.pods().inAnyNamespace().list().getItems()).isNotEmpty();
      assertThat(token.services().inAnyNamespace().list().getItems()).isNotEmpty();
      assertThat(token.discovery().v1().endpointSlices().inAnyNamespace().list().getItems())
          .isNotEmpty();
      token
          .pods()
          .inAnyNamespace()
          .watch(
              new Watcher<>() {
                @Override
                public void eventReceived(Action action, io.fabric8.kubernetes.api.model.Pod p) {}

                @Override
                public void onClose(WatcherException cause) {}
              })
          .close();

      for (Refusal refusal : refusals(token, pod, slice)) {
        KubernetesClientException refused =
            catchThrowableOfType(KubernetesClientException.class, () -> refusal.call().run());
        assertThat(refused).as("%s was allowed", refusal.what()).isNotNull();
        assertThat(refused.getCode()).as("%s: %s", refusal.what(), refused).isEqualTo(403);
      }

      Set<String> rules = rules(token);
      // What every authenticated identity may do (ask who it is, read ClusterTrustBundles...):
      // the rules of the namespace's default ServiceAccount, which no binding names.
      ServiceAccountIdentity nobody =
          ServiceAccountIdentity.request(cluster, namespace, "default", dir);
      try (KubernetesClient nobodyClient = nobody.client(cluster)) {
        rules.removeAll(rules(nobodyClient));
      }
      assertThat(rules)
          .as("what %s may do in a workload namespace", identity.username())
          .isEqualTo(new TreeSet<>(GRANTED));
    }
  }

  /** The resource rules the API server reports for the client's identity, in {@link #namespace}. */
  private Set<String> rules(KubernetesClient client) {
    Set<String> rules = new TreeSet<>();
    for (ResourceRule rule :
        client
            .authorization()
            .v1()
            .selfSubjectRulesReview()
            .create(
                new SelfSubjectRulesReviewBuilder()
                    .withNewSpec()
                    .withNamespace(namespace)
                    .endSpec()
                    .build())
            .getStatus()
            .getResourceRules()) {
      for (String group : rule.getApiGroups()) {
        for (String resource : rule.getResources()) {
          for (String verb : rule.getVerbs()) {
            rules.add(group + "/" + resource + ":" + verb);
          }
        }
      }
    }
    return rules;
  }

  /** The requests that matter most among what the ClusterRole does not grant. */
  private List<Refusal> refusals(KubernetesClient token, String pod, String slice) {
    String ns = namespace;
    return List.of(
        new Refusal("list secrets", () -> token.secrets().inNamespace(ns).list()),
        new Refusal("list secrets cluster-wide", () -> token.secrets().inAnyNamespace().list()),
        new Refusal("get a secret", () -> token.secrets().inNamespace(ns).withName("s").get()),
        new Refusal(
            "get a configmap", () -> token.configMaps().inNamespace(ns).withName("c").get()),
        new Refusal("get a pod", () -> token.pods().inNamespace(ns).withName(pod).get()),
        new Refusal("read a pod's log", () -> token.pods().inNamespace(ns).withName(pod).getLog()),
        new Refusal(
            "create a pod",
            () ->
                token
                    .pods()
                    .resource(
                        new PodBuilder()
                            .withNewMetadata()
                            .withNamespace(ns)
                            .withName("intruder")
                            .endMetadata()
                            .withNewSpec()
                            .addNewContainer()
                            .withName("c")
                            .withImage("x")
                            .endContainer()
                            .endSpec()
                            .build())
                    .create()),
        new Refusal("delete a pod", () -> token.pods().inNamespace(ns).withName(pod).delete()),
        new Refusal(
            "label a service",
            () ->
                token
                    .services()
                    .inNamespace(ns)
                    .withName(APP)
                    .patch(
                        PatchContext.of(PatchType.JSON_MERGE),
                        "{\"metadata\":{\"labels\":{\"x\":\"y\"}}}")),
        new Refusal(
            "create a service",
            () -> token.services().resource(Workloads.service(ns, "intruder")).create()),
        new Refusal(
            "delete a service", () -> token.services().inNamespace(ns).withName(APP).delete()),
        new Refusal(
            "create an endpointslice",
            () ->
                token
                    .discovery()
                    .v1()
                    .endpointSlices()
                    .resource(
                        new EndpointSliceBuilder()
                            .withNewMetadata()
                            .withNamespace(ns)
                            .withName("intruder")
                            .endMetadata()
                            .withAddressType("IPv4")
                            .build())
                    .create()),
        new Refusal(
            "patch an endpointslice",
            () ->
                token
                    .discovery()
                    .v1()
                    .endpointSlices()
                    .inNamespace(ns)
                    .withName(slice)
                    .patch(
                        PatchContext.of(PatchType.JSON_MERGE),
                        "{\"metadata\":{\"labels\":{\"x\":\"y\"}}}")),
        new Refusal(
            "delete an endpointslice",
            () -> token.discovery().v1().endpointSlices().inNamespace(ns).withName(slice).delete()),
        new Refusal(
            "list events.k8s.io events", () -> token.events().v1().events().inNamespace(ns).list()),
        new Refusal(
            "delete events.k8s.io events",
            () -> token.events().v1().events().inNamespace(ns).delete()),
        new Refusal(
            "create a core v1 event",
            () ->
                token
                    .v1()
                    .events()
                    .resource(
                        new io.fabric8.kubernetes.api.model.EventBuilder()
                            .withNewMetadata()
                            .withNamespace(ns)
                            .withName("intruder")
                            .endMetadata()
                            .withNewInvolvedObject()
                            .withKind("Pod")
                            .withNamespace(ns)
                            .withName(pod)
                            .endInvolvedObject()
                            .withReason("X")
                            .build())
                    .create()),
        new Refusal("list nodes", () -> token.nodes().list()),
        new Refusal("list namespaces", () -> token.namespaces().list()),
        new Refusal("list deployments", () -> token.apps().deployments().inAnyNamespace().list()),
        new Refusal(
            "request a token for another ServiceAccount",
            () ->
                token
                    .serviceAccounts()
                    .inNamespace(ns)
                    .withName("default")
                    .tokenRequest(
                        new TokenRequestBuilder()
                            .withNewSpec()
                            .withExpirationSeconds(600L)
                            .endSpec()
                            .build())),
        new Refusal(
            "create a ClusterRole",
            () ->
                token
                    .rbac()
                    .clusterRoles()
                    .resource(
                        new ClusterRoleBuilder()
                            .withNewMetadata()
                            .withName("routesync-e2e-intruder")
                            .endMetadata()
                            .build())
                    .create()),
        new Refusal(
            "get an events.k8s.io event",
            () -> token.events().v1().events().inNamespace(ns).withName("any").get()));
  }
}
