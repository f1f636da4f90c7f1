package dev.routesync.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * B7: the seed's incident (/work/shared/seeds/002), driven by the real Deployment, ReplicaSet and
 * EndpointSlice controllers. A Deployment of 4 behind a Service with {@code targetPort: http} is
 * healthy and the gate passes; a rollout renames the container port to {@code http-api}; every new
 * pod is Ready and none is an endpoint. {@code routesync lint} flags the new manifests, {@code
 * routesync gate} exits 1 with NamedPortNotFound, and the drift detector of the agent on the pods'
 * node raises {@code routesync_drift_pods} within 10 s of the first new pod being Ready.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class SeedIncidentIT {

  private static final String APP = "quote";
  private static final int REPLICAS = 4;

  /** The agent's node: the pods are pinned to it, since a drift detector sees its node only. */
  private static final String NODE = "node-0";

  private static final String RENAMED = "http-api";

  /** The brief's bound, from a pod being Ready to the gauge on /metrics. */
  private static final Duration DRIFT_BOUND = Duration.ofSeconds(10);

  @TempDir Path dir;
  @RegisterExtension final ClusterNamespace ns = new ClusterNamespace("seed");

  @Test
  void aRenamedContainerPortIsCaughtByLintGateAndTheDriftDetector() throws Exception {
    Service service = Workloads.service(ns.name(), APP);
    Deployment healthy =
        Workloads.onNode(Workloads.deployment(ns.name(), APP, REPLICAS, "http"), NODE);
    Deployment renamed =
        Workloads.onNode(Workloads.deployment(ns.name(), APP, REPLICAS, RENAMED), NODE);

    try (AgentProcess agent =
        AgentProcess.start(
            ns.cluster(), dir.resolve("agent"), ns.cluster().kubeconfig(), ns.name())) {
      ControlPlane.Result lintHealthy =
          agent.cli(ns.cluster(), "lint", manifests("healthy", service, healthy).toString());
      assertThat(lintHealthy.exitCode())
          .as("lint of the healthy release:\n%s", lintHealthy)
          .isZero();
      ControlPlane.Result lintRenamed =
          agent.cli(ns.cluster(), "lint", manifests("renamed", service, renamed).toString());
      assertThat(lintRenamed.exitCode())
          .as("lint of the renamed release:\n%s", lintRenamed)
          .isEqualTo(1);
      assertThat(lintRenamed.stdout())
          .contains("RS001", "declares no container port named http", "did you mean http-api?");

      ns.client().services().resource(service).create();
      ns.client().apps().deployments().resource(healthy).create();
      Workloads.awaitRolledOut(ns.client(), ns.name(), APP, Duration.ofMinutes(1));
      agent.awaitReady();

      ControlPlane.Result pass = gate(agent);
      assertThat(pass.exitCode()).as("the gate on the healthy Deployment:\n%s", pass).isZero();
      assertThat(agent.metric("routesync_drift_pods", "")).as("drift before the rollout").isZero();

      AtomicLong firstRenamedReady = new AtomicLong();
      try (Watch pods = recordFirstReady(firstRenamedReady)) {
        ns.client()
            .apps()
            .deployments()
            .inNamespace(ns.name())
            .withName(APP)
            .edit(
                d -> {
                  d.getSpec()
                      .getTemplate()
                      .getSpec()
                      .getContainers()
                      .get(0)
                      .getPorts()
                      .get(0)
                      .setName(RENAMED);
                  return d;
                });
        await().atMost(Duration.ofMinutes(1)).until(() -> firstRenamedReady.get() != 0);
        await()
            .atMost(DRIFT_BOUND)
            .pollInterval(Duration.ofMillis(50))
            .until(() -> agent.metric("routesync_drift_pods", "reason=\"NamedPortNotFound\"") > 0);
        Duration delay = Duration.ofNanos(System.nanoTime() - firstRenamedReady.get());
        System.out.printf(
            "SeedIncidentIT: routesync_drift_pods > 0 %d ms after the first renamed pod was Ready%n",
            delay.toMillis());
        assertThat(delay).isLessThanOrEqualTo(DRIFT_BOUND);
      }

      // The rollout completes, as in the incident: 4 Ready pods and not one endpoint.
      Workloads.awaitRolledOut(ns.client(), ns.name(), APP, Duration.ofMinutes(1));
      assertThat(ReadySets.fromPods(ns.client(), ns.name(), APP, 8080)).hasSize(REPLICAS);
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> ReadySets.fromSlices(ReadySets.slices(ns.client(), ns.name(), APP)).isEmpty());

      ControlPlane.Result fail = gate(agent);
      assertThat(fail.exitCode()).as("the gate after the renaming rollout:\n%s", fail).isEqualTo(1);
      assertThat(fail.stdout() + fail.stderr()).contains("NamedPortNotFound", "http-api");
      await()
          .atMost(DRIFT_BOUND)
          .pollInterval(Duration.ofMillis(100))
          .until(
              () ->
                  agent.metric("routesync_drift_pods", "reason=\"NamedPortNotFound\"") == REPLICAS);
    }
  }

  /** {@code routesync gate} as a deploy pipeline runs it, with the admin kubeconfig. */
  private ControlPlane.Result gate(AgentProcess agent) {
    return agent.cli(
        ns.cluster(),
        "gate",
        "-n",
        ns.name(),
        "--service",
        APP,
        "--kubeconfig",
        ns.cluster().kubeconfig().toString(),
        "--timeout",
        "60s",
        "--settle",
        "2s");
  }

  /** The release as its manifests: one multi-document YAML file, as kustomize build writes it. */
  private Path manifests(String name, HasMetadata... objects) throws Exception {
    StringBuilder yaml = new StringBuilder();
    for (HasMetadata object : objects) {
      yaml.append(ns.client().getKubernetesSerialization().asYaml(object)).append("\n---\n");
    }
    Path file = dir.resolve(name + ".yaml");
    Files.writeString(file, yaml);
    return file;
  }

  /** Records the moment the test first sees a pod of the renamed template Ready. */
  private Watch recordFirstReady(AtomicLong when) {
    return ns.client()
        .pods()
        .inNamespace(ns.name())
        .withLabel("app", APP)
        .watch(
            new Watcher<>() {
              @Override
              public void eventReceived(Action action, Pod pod) {
                if (when.get() == 0 && renamed(pod) && ready(pod)) {
                  when.compareAndSet(0, System.nanoTime());
                }
              }

              @Override
              public void onClose(WatcherException cause) {}
            });
  }

  private static boolean renamed(Pod pod) {
    return pod.getSpec().getContainers().stream()
        .flatMap(c -> c.getPorts().stream())
        .anyMatch(p -> RENAMED.equals(p.getName()));
  }

  private static boolean ready(Pod pod) {
    return pod.getMetadata().getDeletionTimestamp() == null
        && pod.getStatus() != null
        && pod.getStatus().getConditions() != null
        && pod.getStatus().getConditions().stream()
            .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }
}
