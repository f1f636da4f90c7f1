package dev.routesync.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.routesync.config.AgentOptions;
import dev.routesync.config.FlagTypes;
import dev.routesync.units.Durations;
import io.fabric8.kubernetes.api.model.Capabilities;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvFromSource;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HTTPGetAction;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.SeccompProfile;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.RollingUpdateDaemonSet;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicySpec;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * Renders {@code daemonset/} with {@code kubectl kustomize} and holds the install's invariants on
 * fabric8's typed model: what the README and the issue promise a platform team (non-root, read-only
 * root, least-privilege RBAC, probes on the configured admin port, a grace period above the
 * shutdown timeout, a configuration the agent accepts).
 *
 * <p>Without {@code kubectl} on the PATH the tests are skipped, unless {@code
 * ROUTESYNC_REQUIRE_KUBECTL=true}, which turns a missing kubectl into a failure.
 */
class DaemonsetManifestsTest {

  private static final Duration RENDER_TIMEOUT = Duration.ofSeconds(60);
  private static final String NAMESPACE = "routesync";
  private static final String SOCKET_DIR = "/var/run/routesync";
  private static final String STATE_DIR = "/var/run/routesync-state";
  private static final long AGENT_UID = 65532;
  private static final long SOCKET_GROUP = 65533;

  private static final Pattern ENV_NAME = Pattern.compile("\\$\\{env:(ROUTESYNC_[A-Z_]+)");

  private static Path kubectl;
  private static final Map<String, List<HasMetadata>> RENDERED = new ConcurrentHashMap<>();

  @BeforeAll
  static void findKubectl() {
    kubectl = onPath("kubectl");
    if (kubectl == null) {
      if ("true".equalsIgnoreCase(System.getenv("ROUTESYNC_REQUIRE_KUBECTL"))) {
        fail(
            "\n\n*** kubectl NOT FOUND on PATH, and ROUTESYNC_REQUIRE_KUBECTL=true: the daemonset/"
                + " manifests CANNOT be validated. Install kubectl (kustomize v5) or unset"
                + " ROUTESYNC_REQUIRE_KUBECTL. PATH="
                + System.getenv("PATH")
                + " ***\n");
      }
      Assumptions.assumeTrue(false, "kubectl not found: manifest validation skipped");
    }
  }

  // ---- the agent's pod -------------------------------------------------------------------------

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"daemonset/base", "daemonset/overlays/example"})
  void mainContainerIsNonRootReadOnlyWithoutCapabilities(String dir) {
    Install install = install(dir);
    Container agent = install.agent();
    SecurityContext sc = agent.getSecurityContext();
    PodSecurityContext pod = install.pod().getSecurityContext();

    assertThat(sc).as("agent securityContext").isNotNull();
    assertThat(firstNonNull(sc.getRunAsNonRoot(), pod.getRunAsNonRoot())).isTrue();
    assertThat(firstNonNull(sc.getRunAsUser(), pod.getRunAsUser())).isEqualTo(AGENT_UID);
    assertThat(firstNonNull(sc.getRunAsGroup(), pod.getRunAsGroup())).isEqualTo(AGENT_UID);
    assertThat(sc.getReadOnlyRootFilesystem()).isTrue();
    assertThat(sc.getAllowPrivilegeEscalation()).isFalse();
    assertThat(sc.getPrivileged()).isNotEqualTo(Boolean.TRUE);
    Capabilities caps = sc.getCapabilities();
    assertThat(caps.getDrop()).containsExactly("ALL");
    assertThat(caps.getAdd()).isNullOrEmpty();
    SeccompProfile seccomp = firstNonNull(sc.getSeccompProfile(), pod.getSeccompProfile());
    assertThat(seccomp.getType()).isEqualTo("RuntimeDefault");

    // runAsNonRoot false is allowed in the init container only.
    assertThat(install.pod().getContainers())
        .allSatisfy(
            c ->
                assertThat(
                        firstNonNull(
                            c.getSecurityContext() == null
                                ? null
                                : c.getSecurityContext().getRunAsNonRoot(),
                            pod.getRunAsNonRoot()))
                    .as("runAsNonRoot of container %s", c.getName())
                    .isTrue());
    assertThat(install.pod().getHostNetwork()).isNotEqualTo(Boolean.TRUE);
    assertThat(install.pod().getHostPID()).isNotEqualTo(Boolean.TRUE);
    assertThat(install.pod().getHostIPC()).isNotEqualTo(Boolean.TRUE);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"daemonset/base", "daemonset/overlays/example"})
  void probesHitRealPathsOnTheConfiguredAdminPort(String dir) {
    Install install = install(dir);
    Container agent = install.agent();
    int adminPort = Integer.parseInt(install.config("ROUTESYNC_ADMIN_PORT").trim());

    assertProbe(agent, agent.getStartupProbe(), "/readyz", adminPort);
    assertProbe(agent, agent.getReadinessProbe(), "/readyz", adminPort);
    assertProbe(agent, agent.getLivenessProbe(), "/healthz", adminPort);
    // /healthz waits up to 5 s for the sync loop before answering 503: a shorter probe timeout
    // would turn a slow answer into a kill.
    assertThat(agent.getLivenessProbe().getTimeoutSeconds()).isGreaterThan(5);
  }

  private static void assertProbe(Container agent, Probe probe, String path, int adminPort) {
    assertThat(probe).as("probe for %s", path).isNotNull();
    HTTPGetAction get = probe.getHttpGet();
    assertThat(get).as("httpGet probe for %s", path).isNotNull();
    assertThat(get.getPath()).isEqualTo(path);
    IntOrString port = get.getPort();
    int number;
    if (port.getStrVal() != null) {
      ContainerPort named =
          agent.getPorts().stream()
              .filter(p -> port.getStrVal().equals(p.getName()))
              .findFirst()
              .orElseThrow(
                  () ->
                      new AssertionError(
                          "probe port '" + port.getStrVal() + "' names no containerPort"));
      number = named.getContainerPort();
    } else {
      number = port.getIntVal();
    }
    assertThat(number).as("probe %s port vs ROUTESYNC_ADMIN_PORT", path).isEqualTo(adminPort);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"daemonset/base", "daemonset/overlays/example"})
  void adminPortIsNamedAdmin(String dir) {
    Install install = install(dir);
    int adminPort = Integer.parseInt(install.config("ROUTESYNC_ADMIN_PORT").trim());
    assertThat(install.agent().getPorts())
        .anySatisfy(
            p -> {
              assertThat(p.getName()).isEqualTo("admin");
              assertThat(p.getContainerPort()).isEqualTo(adminPort);
            });
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"daemonset/base", "daemonset/overlays/example"})
  void aNetworkPolicyAdmitsToTheAdminPortOnlyPrometheusNamespaceAndNodes(String dir) {
    Install install = install(dir);
    List<NetworkPolicy> policies = install.of(NetworkPolicy.class);
    assertThat(policies).as("%s: NetworkPolicies", dir).hasSize(1);
    NetworkPolicySpec spec = policies.get(0).getSpec();
    // It selects the agent's pods (and nothing on them is reachable but what it lists).
    Map<String, String> podLabels =
        install.daemonSet().getSpec().getTemplate().getMetadata().getLabels();
    assertThat(podLabels).containsAllEntriesOf(spec.getPodSelector().getMatchLabels());
    assertThat(spec.getPodSelector().getMatchExpressions()).isNullOrEmpty();
    assertThat(spec.getPolicyTypes()).containsExactly("Ingress");
    assertThat(spec.getIngress()).as("%s: ingress rules", dir).hasSize(1);
    NetworkPolicyIngressRule rule = spec.getIngress().get(0);
    // Only the admin port, by the container port's name.
    assertThat(rule.getPorts())
        .singleElement()
        .satisfies(
            port -> {
              assertThat(port.getPort()).isEqualTo(new IntOrString("admin"));
              assertThat(port.getProtocol()).isEqualTo("TCP");
            });
    // Never an empty peer list or an empty peer: each would admit everyone.
    assertThat(rule.getFrom()).isNotEmpty();
    for (NetworkPolicyPeer peer : rule.getFrom()) {
      assertThat(peer.getPodSelector()).as("%s: a pod selector admits pods anywhere", dir).isNull();
      if (peer.getIpBlock() != null) {
        assertThat(peer.getIpBlock().getCidr()).isNotIn("0.0.0.0/0", "::/0");
      } else {
        assertThat(peer.getNamespaceSelector().getMatchLabels())
            .as("%s: the Prometheus namespace, by name", dir)
            .containsOnlyKeys("kubernetes.io/metadata.name");
      }
    }
  }

  @Test
  void thePrometheusNamespaceIsSetInTheOverlayByAPatch() {
    assertThat(prometheusNamespaces("daemonset/base")).containsExactly("monitoring");
    assertThat(prometheusNamespaces("daemonset/overlays/example")).containsExactly("observability");
  }

  private static List<String> prometheusNamespaces(String dir) {
    return install(dir)
        .of(NetworkPolicy.class)
        .get(0)
        .getSpec()
        .getIngress()
        .get(0)
        .getFrom()
        .stream()
        .filter(peer -> peer.getNamespaceSelector() != null)
        .map(
            peer -> peer.getNamespaceSelector().getMatchLabels().get("kubernetes.io/metadata.name"))
        .toList();
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"daemonset/base", "daemonset/overlays/example"})
  void gracePeriodExceedsShutdownTimeout(String dir) {
    Install install = install(dir);
    Duration shutdown = Durations.parse(install.config("ROUTESYNC_SHUTDOWN_TIMEOUT"));
    Long grace = install.pod().getTerminationGracePeriodSeconds();
    assertThat(grace).as("terminationGracePeriodSeconds").isNotNull();
    assertThat(Duration.ofSeconds(grace)).isGreaterThan(shutdown);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"daemonset/base", "daemonset/overlays/example"})
  void socketDirectoryIsTheHostPathAndTheSocketsParent(String dir) {
    Install install = install(dir);
    String socketDir = Path.of(install.config("ROUTESYNC_SOCKET")).getParent().toString();
    assertThat(socketDir).isEqualTo(SOCKET_DIR);

    VolumeMount mount =
        install.agent().getVolumeMounts().stream()
            .filter(m -> m.getMountPath().equals(socketDir))
            .findFirst()
            .orElseThrow(() -> new AssertionError("nothing mounted at " + socketDir));
    Volume volume = install.volume(mount.getName());
    assertThat(volume.getHostPath()).as("volume %s", volume.getName()).isNotNull();
    assertThat(volume.getHostPath().getPath()).isEqualTo(SOCKET_DIR);
    assertThat(volume.getHostPath().getType()).isEqualTo("DirectoryOrCreate");
    assertThat(mount.getReadOnly()).isNotEqualTo(Boolean.TRUE);

    // The read-only root needs a writable /tmp.
    VolumeMount tmp =
        install.agent().getVolumeMounts().stream()
            .filter(m -> m.getMountPath().equals("/tmp"))
            .findFirst()
            .orElseThrow(() -> new AssertionError("nothing mounted at /tmp"));
    assertThat(install.volume(tmp.getName()).getEmptyDir()).isNotNull();
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"daemonset/base", "daemonset/overlays/example"})
  void theStateFileIsOnTheAgentsOwnHostPathThatNoSidecarMounts(String dir) {
    Install install = install(dir);
    Path stateFile = Path.of(install.config("ROUTESYNC_STATE_FILE"));
    String stateDir = stateFile.getParent().toString();
    assertThat(stateDir).isEqualTo(STATE_DIR);
    // Neither the socket's directory nor under it: a sidecar mounts that one.
    assertThat(Path.of(stateDir).startsWith(Path.of(SOCKET_DIR))).isFalse();
    VolumeMount mount =
        install.agent().getVolumeMounts().stream()
            .filter(m -> m.getMountPath().equals(stateDir))
            .findFirst()
            .orElseThrow(() -> new AssertionError("nothing mounted at " + stateDir));
    assertThat(mount.getReadOnly()).isNotEqualTo(Boolean.TRUE);
    Volume volume = install.volume(mount.getName());
    assertThat(volume.getHostPath().getPath()).isEqualTo(STATE_DIR);
    assertThat(volume.getHostPath().getType()).isEqualTo("DirectoryOrCreate");

    // The example application mounts the socket's directory only.
    for (HasMetadata object : render("daemonset/examples")) {
      if (object instanceof Deployment deployment) {
        assertThat(deployment.getSpec().getTemplate().getSpec().getVolumes())
            .noneSatisfy(
                v ->
                    assertThat(v.getHostPath() == null ? "" : v.getHostPath().getPath())
                        .startsWith(STATE_DIR));
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"daemonset/base", "daemonset/overlays/example"})
  void initContainerOnlyChownsTheSocketDirectory(String dir) {
    Install install = install(dir);
    List<Container> inits = install.pod().getInitContainers();
    assertThat(inits).hasSize(1);
    Container init = inits.get(0);
    SecurityContext sc = init.getSecurityContext();
    assertThat(sc.getCapabilities().getDrop()).containsExactly("ALL");
    assertThat(new TreeSet<>(sc.getCapabilities().getAdd())).containsExactly("CHOWN", "FOWNER");
    assertThat(sc.getCapabilities().getAdd()).doesNotHaveDuplicates();
    assertThat(sc.getAllowPrivilegeEscalation()).isFalse();
    assertThat(sc.getPrivileged()).isNotEqualTo(Boolean.TRUE);
    assertThat(sc.getReadOnlyRootFilesystem()).isTrue();
    String script = String.join(" ", init.getCommand()) + " " + String.join(" ", init.getArgs());
    assertThat(script)
        .contains("chown " + AGENT_UID + ":" + SOCKET_GROUP + " " + SOCKET_DIR)
        .contains("chmod 2750 " + SOCKET_DIR)
        .contains("chown " + AGENT_UID + ":" + AGENT_UID + " " + STATE_DIR)
        .contains("chmod 0700 " + STATE_DIR);
    assertThat(init.getVolumeMounts())
        .hasSize(2)
        .allSatisfy(
            m ->
                assertThat(install.volume(m.getName()).getHostPath().getPath())
                    .isEqualTo(m.getMountPath())
                    .isIn(SOCKET_DIR, STATE_DIR));
    // The init container must be in the socket group, or chmod silently drops the setgid bit.
    assertThat(install.pod().getSecurityContext().getSupplementalGroups()).contains(SOCKET_GROUP);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"daemonset/base", "daemonset/overlays/example"})
  void schedulingAndRollout(String dir) {
    Install install = install(dir);
    PodSpec pod = install.pod();
    assertThat(pod.getPriorityClassName()).isEqualTo("system-node-critical");
    assertThat(pod.getTolerations())
        .as("a toleration of every taint")
        .anySatisfy(
            (Toleration t) -> {
              assertThat(t.getOperator()).isEqualTo("Exists");
              assertThat(t.getKey()).isNullOrEmpty();
              assertThat(t.getEffect()).isNullOrEmpty();
            });

    assertThat(install.daemonSet().getSpec().getUpdateStrategy().getType())
        .isEqualTo("RollingUpdate");
    RollingUpdateDaemonSet rolling =
        install.daemonSet().getSpec().getUpdateStrategy().getRollingUpdate();
    assertThat(intOrString(rolling.getMaxSurge())).isEqualTo("0");
    assertThat(intOrString(rolling.getMaxUnavailable())).isEqualTo("10%");
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"daemonset/base", "daemonset/overlays/example"})
  void resourcesRequestMemoryAndCpuWithoutCpuLimit(String dir) {
    var resources = install(dir).agent().getResources();
    assertThat(resources.getRequests())
        .containsOnlyKeys("cpu", "memory")
        .satisfies(
            r -> {
              assertQuantity(r.get("cpu"), "50m");
              // Request = limit: the heap is fixed and the measured peak is near the limit, so
              // the scheduler must reserve all of it (docs/install.md, "Memory budget").
              assertQuantity(r.get("memory"), "256Mi");
            });
    assertThat(resources.getLimits()).containsOnlyKeys("memory");
    assertQuantity(resources.getLimits().get("memory"), "256Mi");
  }

  /**
   * The JVM's memory layout agrees with the container's limit: the DaemonSet's own {@code
   * JAVA_TOOL_OPTIONS} if it sets one (a layout for another limit), else the image's. A limit
   * lowered without new flags, or flags grown past the limit, fail here rather than as a SIGKILL.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"daemonset/base", "daemonset/overlays/example"})
  void jvmFlagsFitTheMemoryLimit(String dir) throws IOException {
    Container agent = install(dir).agent();
    Optional<String> override =
        Optional.ofNullable(agent.getEnv()).orElse(List.of()).stream()
            .filter(e -> e.getName().equals("JAVA_TOOL_OPTIONS"))
            .map(EnvVar::getValue)
            .findFirst();
    JvmLayout layout =
        override.isPresent()
            ? JvmLayout.parse(override.get())
            : JvmLayout.ofDockerfile(Path.of("Dockerfile"));
    long limit =
        Quantity.getAmountInBytes(agent.getResources().getLimits().get("memory")).longValue();
    long request =
        Quantity.getAmountInBytes(agent.getResources().getRequests().get("memory")).longValue();
    MemoryBudget.assertFits(layout, limit);
    assertThat(request)
        .as("memory request vs the measured peak with this heap")
        .isGreaterThanOrEqualTo(MemoryBudget.measured(layout));
  }

  private static void assertQuantity(Quantity actual, String expected) {
    assertThat(Quantity.getAmountInBytes(actual))
        .as("%s vs %s", actual, expected)
        .isEqualByComparingTo(Quantity.getAmountInBytes(new Quantity(expected)));
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"daemonset/base", "daemonset/overlays/example"})
  void downwardApiAndConfigMap(String dir) {
    Install install = install(dir);
    Container agent = install.agent();
    Map<String, String> fieldRefs = new TreeMap<>();
    for (EnvVar env : agent.getEnv()) {
      if (env.getValueFrom() != null && env.getValueFrom().getFieldRef() != null) {
        fieldRefs.put(env.getName(), env.getValueFrom().getFieldRef().getFieldPath());
      }
    }
    assertThat(fieldRefs)
        .containsEntry("NODE_NAME", "spec.nodeName")
        .containsEntry("POD_NAME", "metadata.name")
        .containsEntry("POD_NAMESPACE", "metadata.namespace");

    assertThat(agent.getEnvFrom())
        .extracting(EnvFromSource::getConfigMapRef)
        .filteredOn(Objects::nonNull)
        .extracting(ref -> ref.getName())
        .as("envFrom names the rendered ConfigMap")
        .contains(install.configMap().getMetadata().getName());
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"daemonset/base", "daemonset/overlays/example"})
  void configMapSetsOnlyVariablesTheAgentReads(String dir) {
    Set<String> known = agentEnvNames();
    assertThat(known).contains("ROUTESYNC_SOCKET", "ROUTESYNC_ADMIN_PORT"); // the parse works
    assertThat(install(dir).configMap().getData().keySet()).isSubsetOf(known);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"daemonset/base", "daemonset/overlays/example"})
  void configMapValuesAreAcceptedByTheAgent(String dir) {
    Map<String, String> flags = agentFlagsByEnvName();
    List<String> args = new ArrayList<>();
    install(dir)
        .configMap()
        .getData()
        .forEach(
            (k, v) -> {
              if (flags.containsKey(k)) { // unknown names fail configMapSetsOnlyVariables...
                args.add(flags.get(k) + "=" + v);
              }
            });
    AgentOptions options = new AgentOptions();
    FlagTypes.register(new CommandLine(options)).parseArgs(args.toArray(String[]::new));
    var config = options.toConfig(); // throws, naming the flag, on a value the agent rejects
    assertThat(config.socket().toString()).isEqualTo(install(dir).config("ROUTESYNC_SOCKET"));
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"daemonset/base", "daemonset/overlays/example"})
  void podUsesTheSocketGroupAndTheServiceAccountToken(String dir) {
    Install install = install(dir);
    PodSecurityContext pod = install.pod().getSecurityContext();
    assertThat(pod.getSupplementalGroups()).contains(SOCKET_GROUP);
    assertThat(install.pod().getAutomountServiceAccountToken()).isNotEqualTo(Boolean.FALSE);
    ServiceAccount account =
        install.one(ServiceAccount.class, install.pod().getServiceAccountName());
    assertThat(account.getAutomountServiceAccountToken()).isNotEqualTo(Boolean.FALSE);
    assertThat(account.getMetadata().getNamespace()).isEqualTo(NAMESPACE);
    assertThat(install.daemonSet().getMetadata().getNamespace()).isEqualTo(NAMESPACE);
    assertThat(install.of(Namespace.class))
        .extracting(n -> n.getMetadata().getName())
        .containsExactly(NAMESPACE);
  }

  // ---- RBAC ------------------------------------------------------------------------------------

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"daemonset/base", "daemonset/overlays/example"})
  void rbacGrantsOnlyWhatTheAgentUses(String dir) {
    Install install = install(dir);
    assertThat(install.of(Role.class)).isEmpty();
    assertThat(install.of(RoleBinding.class)).isEmpty();
    List<ClusterRole> roles = install.of(ClusterRole.class);
    assertThat(roles).hasSize(1);
    ClusterRole role = roles.get(0);
    assertThat(role.getAggregationRule()).isNull();
    // "group/resource" -> verbs, over every rule: reading slices, Services and Pods (the drift
    // detector watches its node's), and writing the drift detector's Events (created, then only
    // their series patched: no get, update or delete); and get of its own Node (its zone label).
    Map<String, Set<String>> grants = new TreeMap<>();
    for (PolicyRule rule : role.getRules()) {
      assertThat(rule.getResourceNames()).isNullOrEmpty();
      assertThat(rule.getNonResourceURLs()).isNullOrEmpty();
      for (String group : rule.getApiGroups()) {
        for (String resource : rule.getResources()) {
          grants
              .computeIfAbsent(group + "/" + resource, k -> new TreeSet<>())
              .addAll(rule.getVerbs());
        }
      }
    }
    assertThat(grants)
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "discovery.k8s.io/endpointslices", Set.of("list", "watch"),
                "/services", Set.of("list", "watch"),
                "/pods", Set.of("list", "watch"),
                "/nodes", Set.of("get"),
                "events.k8s.io/events", Set.of("create", "patch")));

    List<ClusterRoleBinding> bindings = install.of(ClusterRoleBinding.class);
    assertThat(bindings).hasSize(1);
    ClusterRoleBinding binding = bindings.get(0);
    assertThat(binding.getRoleRef().getKind()).isEqualTo("ClusterRole");
    assertThat(binding.getRoleRef().getName()).isEqualTo(role.getMetadata().getName());
    assertThat(binding.getSubjects())
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.getKind()).isEqualTo("ServiceAccount");
              assertThat(s.getName()).isEqualTo(install.pod().getServiceAccountName());
              assertThat(s.getNamespace()).isEqualTo(NAMESPACE);
            });
  }

  // ---- the other kustomizations ---------------------------------------------------------------

  @Test
  void exampleSidecarCanReachTheSocket() {
    List<HasMetadata> objects = render("daemonset/examples");
    Deployment deployment = exampleDeployment("hello");
    assertThat(objects)
        .filteredOn(o -> o.getKind().equals("Service"))
        .singleElement()
        .satisfies(
            s -> assertThat(s.getMetadata().getLabels()).containsEntry("mesh-managed", "true"));
    PodSpec pod = deployment.getSpec().getTemplate().getSpec();
    assertThat(pod.getSecurityContext().getSupplementalGroups()).contains(SOCKET_GROUP);
    Volume socketVolume =
        pod.getVolumes().stream()
            .filter(v -> v.getHostPath() != null && SOCKET_DIR.equals(v.getHostPath().getPath()))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no hostPath " + SOCKET_DIR));
    assertThat(pod.getContainers())
        .anySatisfy(
            c ->
                assertThat(c.getVolumeMounts())
                    .anySatisfy(
                        m -> {
                          assertThat(m.getName()).isEqualTo(socketVolume.getName());
                          assertThat(m.getMountPath()).isEqualTo(SOCKET_DIR);
                          assertThat(m.getReadOnly()).isTrue();
                        }));
  }

  @Test
  void exampleGrpcClientGetsItsBootstrapFromTheAgentsImageInAnInitContainer() {
    PodSpec pod = exampleDeployment("hello-client").getSpec().getTemplate().getSpec();
    assertThat(pod.getInitContainers()).hasSize(1);
    Container init = pod.getInitContainers().get(0);
    // The agent's own image: the command ships with the agent, whatever tag an overlay sets.
    assertThat(init.getImage()).isEqualTo(install("daemonset/base").agent().getImage());
    List<String> args = new ArrayList<>();
    if (init.getCommand() != null) {
      args.addAll(init.getCommand());
    }
    args.addAll(init.getArgs());
    assertThat(args).startsWith("bootstrap").contains("--output-file");
    String file = args.get(args.indexOf("--output-file") + 1);
    String fileDir = Path.of(file).getParent().toString();
    EnvVar nodeName =
        init.getEnv().stream()
            .filter(e -> e.getName().equals("NODE_NAME"))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no NODE_NAME in the init container"));
    assertThat(nodeName.getValueFrom().getFieldRef().getFieldPath()).isEqualTo("spec.nodeName");
    VolumeMount written = mountAt(init, fileDir);
    assertThat(written.getReadOnly()).isNotEqualTo(Boolean.TRUE);
    assertThat(volume(pod, written.getName()).getEmptyDir()).isNotNull();
    assertThat(init.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
    assertThat(init.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();

    assertThat(pod.getContainers()).hasSize(1);
    Container app = pod.getContainers().get(0);
    assertThat(app.getEnv())
        .anySatisfy(
            e -> {
              assertThat(e.getName()).isEqualTo("GRPC_XDS_BOOTSTRAP");
              assertThat(e.getValue()).isEqualTo(file);
            });
    VolumeMount read = mountAt(app, fileDir);
    assertThat(read.getName()).isEqualTo(written.getName());
    assertThat(read.getReadOnly()).isTrue();
    VolumeMount socket = mountAt(app, SOCKET_DIR);
    assertThat(socket.getReadOnly()).isTrue();
    assertThat(volume(pod, socket.getName()).getHostPath().getPath()).isEqualTo(SOCKET_DIR);
    assertThat(pod.getSecurityContext().getSupplementalGroups()).contains(SOCKET_GROUP);
    assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
  }

  @Test
  void exampleGrpcClientTargetsAGrpcPortOfTheHelloService() {
    Container app =
        exampleDeployment("hello-client").getSpec().getTemplate().getSpec().getContainers().get(0);
    String script = String.join(" ", app.getCommand()) + " " + String.join(" ", app.getArgs());
    Matcher target =
        Pattern.compile("xds:///hello\\.routesync-example:([a-z0-9-]+)").matcher(script);
    assertThat(target.find()).as("an xds:/// target in: %s", script).isTrue();
    String port = target.group(1);

    io.fabric8.kubernetes.api.model.Service hello =
        render("daemonset/examples").stream()
            .filter(io.fabric8.kubernetes.api.model.Service.class::isInstance)
            .map(io.fabric8.kubernetes.api.model.Service.class::cast)
            .filter(s -> s.getMetadata().getName().equals("hello"))
            .findFirst()
            .orElseThrow();
    io.fabric8.kubernetes.api.model.ServicePort servicePort =
        hello.getSpec().getPorts().stream()
            .filter(p -> port.equals(p.getName()) || port.equals(String.valueOf(p.getPort())))
            .findFirst()
            .orElseThrow(() -> new AssertionError("Service hello has no port " + port));
    // The port's target is a container port of the hello pods, served by a gRPC server whose
    // readiness is a gRPC health probe on it.
    String targetName = servicePort.getTargetPort().getStrVal();
    assertThat(targetName).as("targetPort of %s", port).isNotNull();
    PodSpec helloPod = exampleDeployment("hello").getSpec().getTemplate().getSpec();
    Container server =
        helloPod.getContainers().stream()
            .filter(
                c ->
                    c.getPorts() != null
                        && c.getPorts().stream().anyMatch(p -> targetName.equals(p.getName())))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no container port named " + targetName));
    int number =
        server.getPorts().stream()
            .filter(p -> targetName.equals(p.getName()))
            .findFirst()
            .orElseThrow()
            .getContainerPort();
    assertThat(server.getReadinessProbe().getGrpc().getPort()).isEqualTo(number);
  }

  @Test
  void exampleGrpcClientsTokenReachesOnlyTheInitContainerAndMayOnlyGetNodes() {
    PodSpec pod = exampleDeployment("hello-client").getSpec().getTemplate().getSpec();
    String tokenDir = "/var/run/secrets/kubernetes.io/serviceaccount";
    assertThat(pod.getAutomountServiceAccountToken()).isFalse();
    Container init = pod.getInitContainers().get(0);
    assertThat(volume(pod, mountAt(init, tokenDir).getName()).getProjected()).isNotNull();
    assertThat(pod.getContainers())
        .allSatisfy(
            c ->
                assertThat(c.getVolumeMounts())
                    .noneSatisfy(m -> assertThat(m.getMountPath()).isEqualTo(tokenDir)));

    List<HasMetadata> objects = render("daemonset/examples");
    List<ClusterRoleBinding> bindings =
        objects.stream()
            .filter(ClusterRoleBinding.class::isInstance)
            .map(ClusterRoleBinding.class::cast)
            .filter(
                b ->
                    b.getSubjects().stream()
                        .anyMatch(
                            s ->
                                s.getKind().equals("ServiceAccount")
                                    && s.getName().equals(pod.getServiceAccountName())
                                    && s.getNamespace().equals("routesync-example")))
            .toList();
    assertThat(bindings).hasSize(1);
    ClusterRole role =
        objects.stream()
            .filter(ClusterRole.class::isInstance)
            .map(ClusterRole.class::cast)
            .filter(r -> r.getMetadata().getName().equals(bindings.get(0).getRoleRef().getName()))
            .findFirst()
            .orElseThrow();
    assertThat(role.getRules())
        .singleElement()
        .satisfies(
            rule -> {
              assertThat(rule.getApiGroups()).containsExactly("");
              assertThat(rule.getResources()).containsExactly("nodes");
              assertThat(rule.getVerbs()).containsExactly("get");
            });
    assertThat(objects)
        .filteredOn(o -> o.getKind().equals("Role") || o.getKind().equals("RoleBinding"))
        .isEmpty();
  }

  private static Deployment exampleDeployment(String name) {
    return render("daemonset/examples").stream()
        .filter(Deployment.class::isInstance)
        .map(Deployment.class::cast)
        .filter(d -> d.getMetadata().getName().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("daemonset/examples: no Deployment " + name));
  }

  private static VolumeMount mountAt(Container container, String path) {
    return container.getVolumeMounts().stream()
        .filter(m -> m.getMountPath().equals(path))
        .findFirst()
        .orElseThrow(
            () -> new AssertionError(container.getName() + ": nothing mounted at " + path));
  }

  private static Volume volume(PodSpec pod, String name) {
    return pod.getVolumes().stream()
        .filter(v -> v.getName().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no volume " + name));
  }

  @Test
  void monitoringRendersAPodMonitorOnTheAdminPortAndARule() {
    List<HasMetadata> objects = render("daemonset/monitoring");
    assertThat(objects)
        .extracting(HasMetadata::getKind)
        .containsExactlyInAnyOrder("PodMonitor", "PrometheusRule");
    GenericKubernetesResource podMonitor =
        objects.stream()
            .filter(o -> o.getKind().equals("PodMonitor"))
            .map(GenericKubernetesResource.class::cast)
            .findFirst()
            .orElseThrow();
    Object port = podMonitor.get("spec", "podMetricsEndpoints", 0, "port");
    Object path = podMonitor.get("spec", "podMetricsEndpoints", 0, "path");
    assertThat(port).isEqualTo("admin");
    assertThat(path).isEqualTo("/metrics");
    Object matchLabels = podMonitor.get("spec", "selector", "matchLabels");
    assertThat(matchLabels).isInstanceOf(Map.class);
    Map<String, String> podLabels =
        install("daemonset/base").daemonSet().getSpec().getTemplate().getMetadata().getLabels();
    assertThat(podLabels).containsAllEntriesOf(castLabels((Map<?, ?>) matchLabels));
    assertThat(podMonitor.getMetadata().getNamespace()).isEqualTo(NAMESPACE);
  }

  @Test
  void theAlertsUseTheAgentsOwnGaugesAndNoKubeStateMetrics() {
    GenericKubernetesResource rule =
        render("daemonset/monitoring").stream()
            .filter(o -> o.getKind().equals("PrometheusRule"))
            .map(GenericKubernetesResource.class::cast)
            .findFirst()
            .orElseThrow();
    Map<String, String> exprByAlert = new TreeMap<>();
    for (Object group : (List<?>) rule.get("spec", "groups")) {
      for (Object entry : (List<?>) ((Map<?, ?>) group).get("rules")) {
        Map<?, ?> alert = (Map<?, ?>) entry;
        exprByAlert.put(String.valueOf(alert.get("alert")), String.valueOf(alert.get("expr")));
      }
    }
    assertThat(exprByAlert.get("RoutesyncPodNotInServiceEndpoints"))
        .contains("routesync_drift_pods")
        .contains("> 0");
    assertThat(exprByAlert.get("MeshServiceLostAllReadyEndpoints"))
        .contains("max_over_time(routesync_service_ready_endpoints[1h])")
        .contains("max by (namespace, service, port)")
        .contains("== 0");
    assertThat(exprByAlert.values()).noneMatch(expr -> expr.contains("kube_"));
    GenericKubernetesResource podMonitor =
        render("daemonset/monitoring").stream()
            .filter(o -> o.getKind().equals("PodMonitor"))
            .map(GenericKubernetesResource.class::cast)
            .findFirst()
            .orElseThrow();
    // The gauges' own namespace label must win over the agent pod's.
    assertThat(podMonitor.<Object>get("spec", "podMetricsEndpoints", 0, "honorLabels"))
        .isEqualTo(true);
  }

  private static Map<String, String> castLabels(Map<?, ?> map) {
    Map<String, String> result = new TreeMap<>();
    map.forEach((k, v) -> result.put(String.valueOf(k), String.valueOf(v)));
    return result;
  }

  // ---- helpers ---------------------------------------------------------------------------------

  /** The rendered install of one kustomization, with lookups. */
  private record Install(String dir, List<HasMetadata> objects) {

    <T extends HasMetadata> List<T> of(Class<T> type) {
      return objects.stream().filter(type::isInstance).map(type::cast).toList();
    }

    <T extends HasMetadata> T one(Class<T> type, String name) {
      return of(type).stream()
          .filter(o -> o.getMetadata().getName().equals(name))
          .findFirst()
          .orElseThrow(
              () -> new AssertionError(dir + ": no " + type.getSimpleName() + " named " + name));
    }

    DaemonSet daemonSet() {
      List<DaemonSet> sets = of(DaemonSet.class);
      assertThat(sets).as("%s: DaemonSets", dir).hasSize(1);
      return sets.get(0);
    }

    PodSpec pod() {
      return daemonSet().getSpec().getTemplate().getSpec();
    }

    Container agent() {
      return pod().getContainers().stream()
          .filter(c -> c.getName().equals("agent"))
          .findFirst()
          .orElseThrow(() -> new AssertionError(dir + ": no container named agent"));
    }

    Volume volume(String name) {
      return pod().getVolumes().stream()
          .filter(v -> v.getName().equals(name))
          .findFirst()
          .orElseThrow(() -> new AssertionError(dir + ": no volume " + name));
    }

    ConfigMap configMap() {
      List<ConfigMap> maps = of(ConfigMap.class);
      assertThat(maps).as("%s: ConfigMaps", dir).hasSize(1);
      return maps.get(0);
    }

    String config(String key) {
      String value = configMap().getData().get(key);
      assertThat(value).as("%s: ConfigMap key %s", dir, key).isNotNull();
      return value;
    }
  }

  private static Install install(String dir) {
    return new Install(dir, render(dir));
  }

  private static List<HasMetadata> render(String dir) {
    return RENDERED.computeIfAbsent(dir, DaemonsetManifestsTest::kustomize);
  }

  private static List<HasMetadata> kustomize(String dir) {
    Path out = null;
    Path err = null;
    try {
      out = Files.createTempFile("kustomize", ".yaml");
      err = Files.createTempFile("kustomize", ".err");
      Process process =
          new ProcessBuilder(kubectl.toString(), "kustomize", dir)
              .redirectOutput(out.toFile())
              .redirectError(err.toFile())
              .start();
      if (!process.waitFor(RENDER_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new AssertionError(
            "kubectl kustomize " + dir + " did not finish in " + RENDER_TIMEOUT);
      }
      if (process.exitValue() != 0) {
        throw new AssertionError(
            "kubectl kustomize "
                + dir
                + " failed with exit code "
                + process.exitValue()
                + ":\n"
                + Files.readString(err, StandardCharsets.UTF_8));
      }
      List<HasMetadata> objects = parse(out);
      assertThat(objects).as("objects rendered from %s", dir).isNotEmpty();
      return objects;
    } catch (IOException e) {
      throw new AssertionError("cannot run kubectl kustomize " + dir + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted rendering " + dir, e);
    } finally {
      deleteQuietly(out);
      deleteQuietly(err);
    }
  }

  /** Every document of a multi-document YAML stream, as fabric8's typed objects. */
  private static List<HasMetadata> parse(Path yaml) throws IOException {
    Object parsed;
    try (InputStream in = Files.newInputStream(yaml)) {
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
      assertThat(item).as("rendered document").isInstanceOf(HasMetadata.class);
      objects.add((HasMetadata) item);
    }
    return objects;
  }

  /** The ROUTESYNC_* variables named in AgentOptions' picocli defaults. */
  private static Set<String> agentEnvNames() {
    return new TreeSet<>(agentFlagsByEnvName().keySet());
  }

  /** ROUTESYNC_* variable to its flag, from the {@code ${env:...}} default of every option. */
  private static Map<String, String> agentFlagsByEnvName() {
    Map<String, String> result = new TreeMap<>();
    for (Field field : AgentOptions.class.getDeclaredFields()) {
      Option option = field.getAnnotation(Option.class);
      if (option == null) {
        continue;
      }
      Matcher matcher = ENV_NAME.matcher(option.defaultValue());
      while (matcher.find()) {
        result.put(matcher.group(1), option.names()[0]);
      }
    }
    return result;
  }

  private static String intOrString(IntOrString value) {
    assertThat(value).isNotNull();
    return value.getStrVal() != null ? value.getStrVal() : String.valueOf(value.getIntVal());
  }

  private static <T> T firstNonNull(T first, T second) {
    return first != null ? first : second;
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
