package dev.routesync.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.routesync.api.v1.Endpoint;
import dev.routesync.api.v1.ServiceEndpoints;
import dev.routesync.api.v1.ServiceRef;
import dev.routesync.api.v1.WatchEvent;
import dev.routesync.api.v1.WatchRequest;
import dev.routesync.testing.WatchRecorder;
import io.fabric8.kubernetes.api.model.LifecycleBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * B2: terminating pods, as the real EndpointSlice controller reports them. A deleted pod whose
 * container has a {@code preStop} sleep stays Ready while it drains, so the controller writes it
 * {@code ready: false, serving: true, terminating: true}. While other pods are ready the agent does
 * not route to it; when only such pods are left it serves them, as kube-proxy does (KEP-1669), and
 * an xDS client keeps reaching them.
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class TerminatingIT {

  private static final String APP = "drain";
  private static final int SERVICE_PORT = 80;
  private static final int POD_PORT = 8080;

  /**
   * How long a deleted pod drains: far longer than any test here needs it terminating, so none
   * waits for the end of it (the namespace's deletion does).
   */
  private static final long PRE_STOP_SECONDS = 150;

  /** The grace period bounds the preStop sleep, so it must be longer. */
  private static final long GRACE_SECONDS = PRE_STOP_SECONDS + 30;

  private static final Duration ROLLOUT = Duration.ofSeconds(60);

  /** From the slices' write to the agent's table: one debounce and a flush, with slack. */
  private static final Duration CONVERGE = Duration.ofSeconds(15);

  @TempDir Path dir;
  @RegisterExtension final ClusterNamespace ns = new ClusterNamespace("drain");

  @Test
  void aTerminatingPodIsNotRoutedWhileReadyPodsRemain() throws Exception {
    deploy(3);
    try (AgentProcess agent = startAgent()) {
      Set<String> ready = awaitAgentServesReadyPods(agent, 3);
      WatchRecorder versions = watch(agent);

      String victim = ready.iterator().next();
      deletePod(victim);
      awaitSliceSays(victim, false, true, true);

      // The ReplicaSet replaces the pod: the agent serves the new ready set, without the drain.
      await()
          .atMost(ROLLOUT)
          .pollInterval(Duration.ofMillis(250))
          .until(() -> ReadySets.fromPods(ns.client(), ns.name(), APP, POD_PORT).size() == 3);
      Set<String> readyNow = ipsOf(ReadySets.fromPods(ns.client(), ns.name(), APP, POD_PORT));
      await()
          .atMost(CONVERGE)
          .pollInterval(Duration.ofMillis(200))
          .untilAsserted(
              () ->
                  assertThat(ips(published(agent)))
                      .as("served while ready pods remain and %s drains", victim)
                      .isEqualTo(readyNow));
      assertThat(published(agent))
          .as("every endpoint served while ready pods remain is ready")
          .allSatisfy(e -> assertThat(e.getReady()).as(e.getIp() + " ready").isTrue());
      assertThat(terminatingInSlices())
          .as("the deleted pod is still draining, so the check above saw it excluded")
          .contains(victim);

      // No version after the one that dropped it brought it back (a flap would route to it).
      List<Set<String>> history = servedHistory(versions);
      int dropped = indexOfFirst(history, s -> !s.contains(victim));
      assertThat(dropped).as("a version without %s in %s", victim, history).isNotNegative();
      assertThat(history.subList(dropped, history.size()))
          .as("versions after %s was dropped", victim)
          .noneMatch(s -> s.contains(victim));
    }
  }

  @Test
  void whenOnlyTerminatingPodsRemainTheAgentServesThemWithoutAnEmptyTable() throws Exception {
    deploy(2);
    try (AgentProcess agent = startAgent()) {
      Set<String> ready = awaitAgentServesReadyPods(agent, 2);
      WatchRecorder versions = watch(agent);

      scale(0);
      for (String ip : ready) {
        awaitSliceSays(ip, false, true, true);
      }
      awaitTerminatingFallback(agent, ready);

      assertThat(terminatingInSlices()).as("the pods are still draining").isEqualTo(ready);
      List<Set<String>> history = servedHistory(versions);
      assertThat(history)
          .as("every version from the ready set to the terminating fallback: %s", history)
          .isNotEmpty()
          .noneMatch(Set::isEmpty);
      assertThat(history.get(history.size() - 1)).isEqualTo(ready);
    }
  }

  /**
   * An unmodified grpc-js-xds client reaches both pods while they are ready, and keeps reaching
   * them once only draining pods remain: the fallback is sent HEALTHY. (Sent as DRAINING, every
   * call failed with UNAVAILABLE "priority policy has empty priority list".)
   */
  @Test
  void anXdsClientKeepsReachingTerminatingPods() throws Exception {
    deploy(2);
    try (AgentProcess agent = startAgent()) {
      Set<String> ready = awaitAgentServesReadyPods(agent, 2);
      Path bootstrap = dir.resolve("xds-bootstrap.json");
      ControlPlane.Result written =
          agent.cli(
              ns.cluster(),
              "bootstrap",
              "--node-name",
              "node-0",
              "--socket",
              agent.socket().toString(),
              "--zone",
              "zone-a",
              "--output-file",
              bootstrap.toString());
      assertThat(written.exitCode()).as("routesync bootstrap: %s", written).isZero();

      String target = "xds:///" + APP + "." + ns.name() + ":" + SERVICE_PORT;
      try (NetnsXdsProbe probe =
          NetnsXdsProbe.start(
              ns.cluster().project(),
              bootstrap,
              List.copyOf(ready),
              POD_PORT,
              target,
              Duration.ofMinutes(3),
              // Kept after the run, as the unit tier keeps grpc-js's trace: the EDS it was sent.
              ns.cluster().project().resolve("target/netns-xds-probe.log"))) {
        // First while the pods are ready: the namespace, the backends and the xDS path work.
        await()
            .atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofMillis(200))
            .failFast("the probe exited:\n" + probe.describe(), () -> !probe.alive())
            .untilAsserted(
                () ->
                    assertThat(repliesOf(probe.calls()))
                        .as("pods reached while ready\n%s", probe.describe())
                        .isEqualTo(ready));

        scale(0);
        awaitTerminatingFallback(agent, ready);
        int from = probe.calls().size();
        // Two seconds of calls after the agent served the fallback: time for its EDS update to
        // reach the client, and every one of them must reach a draining pod.
        await()
            .atMost(Duration.ofSeconds(30))
            .pollInterval(Duration.ofMillis(200))
            .failFast("the probe exited:\n" + probe.describe(), () -> !probe.alive())
            .until(() -> probe.callsFrom(from).size() >= 20);
        assertThat(probe.callsFrom(from))
            .as("calls once only terminating pods remain\n%s", probe.describe())
            .allSatisfy(
                call -> {
                  assertThat(call.ok()).as("call %s", call).isTrue();
                  assertThat(ready).contains(call.reply());
                });
        assertThat(terminatingInSlices()).as("the pods were draining all along").isEqualTo(ready);
      }
    }
  }

  /** The Service and a Deployment whose pods drain for {@link #PRE_STOP_SECONDS} when deleted. */
  private void deploy(int replicas) {
    ns.client().services().resource(Workloads.service(ns.name(), APP)).create();
    Deployment deployment = Workloads.deployment(ns.name(), APP, replicas, "http");
    var pod = deployment.getSpec().getTemplate().getSpec();
    pod.setTerminationGracePeriodSeconds(GRACE_SECONDS);
    pod.getContainers()
        .get(0)
        .setLifecycle(
            new LifecycleBuilder()
                .withNewPreStop()
                .withNewSleep()
                .withSeconds(PRE_STOP_SECONDS)
                .endSleep()
                .endPreStop()
                .build());
    ns.client().apps().deployments().resource(deployment).create();
    Workloads.awaitRolledOut(ns.client(), ns.name(), APP, ROLLOUT);
  }

  private AgentProcess startAgent() throws Exception {
    return AgentProcess.start(
            ns.cluster(), dir.resolve("agent"), ns.cluster().kubeconfig(), ns.name())
        .awaitReady();
  }

  /** Waits until the agent serves exactly the ready pods, all ready; returns their IPs. */
  private Set<String> awaitAgentServesReadyPods(AgentProcess agent, int replicas) {
    Set<String> pods = ipsOf(ReadySets.fromPods(ns.client(), ns.name(), APP, POD_PORT));
    assertThat(pods).hasSize(replicas);
    await()
        .atMost(CONVERGE)
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(() -> assertThat(ips(published(agent))).isEqualTo(pods));
    return pods;
  }

  /**
   * Waits until the agent serves exactly {@code ips}, each as the slices say it: not ready, serving
   * and terminating.
   */
  private void awaitTerminatingFallback(AgentProcess agent, Set<String> ips) {
    await()
        .atMost(CONVERGE)
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () -> {
              List<Endpoint> served = published(agent);
              assertThat(ips(served)).as("served once no pod is ready").isEqualTo(ips);
              assertThat(served)
                  .allSatisfy(
                      e -> {
                        assertThat(e.getReady()).as(e.getIp() + " ready").isFalse();
                        assertThat(e.getServing()).as(e.getIp() + " serving").isTrue();
                        assertThat(e.getTerminating()).as(e.getIp() + " terminating").isTrue();
                      });
            });
  }

  private void deletePod(String ip) {
    Pod pod =
        ns.client().pods().inNamespace(ns.name()).withLabel("app", APP).list().getItems().stream()
            .filter(p -> ip.equals(p.getStatus().getPodIP()))
            .findFirst()
            .orElseThrow();
    ns.client()
        .pods()
        .inNamespace(ns.name())
        .withName(pod.getMetadata().getName())
        .withGracePeriod(GRACE_SECONDS)
        .delete();
  }

  private void scale(int replicas) {
    ns.client().apps().deployments().inNamespace(ns.name()).withName(APP).scale(replicas);
  }

  /** Waits until the real controller writes {@code ip} with these conditions. */
  private void awaitSliceSays(String ip, boolean ready, boolean serving, boolean terminating) {
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () ->
                assertThat(conditionsInSlices().get(ip))
                    .as("conditions of %s in the real slices", ip)
                    .isEqualTo(List.of(ready, serving, terminating)));
  }

  /** IP to [ready, serving, terminating] as the real slices write them (absent reads null). */
  private Map<String, List<Boolean>> conditionsInSlices() {
    Map<String, List<Boolean>> conditions = new TreeMap<>();
    for (EndpointSlice slice : ReadySets.slices(ns.client(), ns.name(), APP)) {
      for (var endpoint : Optional.ofNullable(slice.getEndpoints()).orElse(List.of())) {
        var c = endpoint.getConditions();
        List<Boolean> values = new ArrayList<>();
        values.add(c == null ? null : c.getReady());
        values.add(c == null ? null : c.getServing());
        values.add(c == null ? null : c.getTerminating());
        conditions.put(endpoint.getAddresses().get(0), values);
      }
    }
    return conditions;
  }

  private Set<String> terminatingInSlices() {
    Set<String> terminating = new TreeSet<>();
    conditionsInSlices()
        .forEach(
            (ip, c) -> {
              if (Boolean.TRUE.equals(c.get(2))) {
                terminating.add(ip);
              }
            });
    return terminating;
  }

  private WatchRecorder watch(AgentProcess agent) {
    WatchRecorder versions = new WatchRecorder();
    agent
        .grpc()
        .watch(
            WatchRequest.newBuilder()
                .addServices(ServiceRef.newBuilder().setNamespace(ns.name()).setName(APP))
                .build(),
            versions);
    await().atMost(Duration.ofSeconds(10)).until(() -> !versions.events().isEmpty());
    return versions;
  }

  /**
   * The IPs the Service had at each version the Watch brought, the snapshot first; a version that
   * removed the Service counts as empty.
   */
  private List<Set<String>> servedHistory(WatchRecorder versions) {
    List<Set<String>> history = new ArrayList<>();
    for (WatchEvent event : versions.events()) {
      for (ServiceEndpoints service : event.getUpsertedList()) {
        if (service.getNamespace().equals(ns.name()) && service.getName().equals(APP)) {
          history.add(ips(service.getEndpointsList()));
        }
      }
      for (ServiceRef removed : event.getRemovedList()) {
        if (removed.getNamespace().equals(ns.name()) && removed.getName().equals(APP)) {
          history.add(Set.of());
        }
      }
    }
    return history;
  }

  private static <T> int indexOfFirst(List<T> list, java.util.function.Predicate<T> test) {
    for (int i = 0; i < list.size(); i++) {
      if (test.test(list.get(i))) {
        return i;
      }
    }
    return -1;
  }

  private List<Endpoint> published(AgentProcess agent) {
    try {
      return agent.grpc().resolve(ns.name(), APP).getEndpointsList();
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
        return List.of();
      }
      throw e;
    }
  }

  private static Set<String> ips(List<Endpoint> endpoints) {
    Set<String> ips = new TreeSet<>();
    endpoints.forEach(e -> ips.add(e.getIp()));
    return ips;
  }

  /** {@code ip:port} to {@code ip}. */
  private static Set<String> ipsOf(Set<String> addresses) {
    Set<String> ips = new TreeSet<>();
    addresses.forEach(a -> ips.add(a.substring(0, a.lastIndexOf(':'))));
    return ips;
  }

  private static Set<String> repliesOf(List<NetnsXdsProbe.Call> calls) {
    Set<String> replies = new TreeSet<>();
    calls.stream().filter(NetnsXdsProbe.Call::ok).forEach(c -> replies.add(c.reply()));
    return replies;
  }
}
