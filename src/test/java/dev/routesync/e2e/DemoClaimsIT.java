package dev.routesync.e2e;

import static dev.routesync.testing.AdsClient.EDS;
import static dev.routesync.testing.AdsClient.assignments;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.routesync.testing.AdsClient;
import dev.routesync.testing.UdsHttp;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.config.endpoint.v3.LbEndpoint;
import io.envoyproxy.envoy.config.endpoint.v3.LocalityLbEndpoints;
import io.fabric8.kubernetes.api.model.Pod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * B8: what the README's demo shows against the mock, for real. An opted-in Service with three pods
 * and an unlabelled one beside it, the real controllers writing the slices: {@code routesync get
 * services}, {@code get endpoints}, {@code get status}, the HTTP API on the socket, {@code
 * routesync watch} following a scale-up, and EDS over the agent's ADS stream. The status page
 * (issue 24) does not exist yet; add it here when it lands.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class DemoClaimsIT {

  private static final String APP = "cart";
  private static final String UNLABELLED = "legacy-admin";
  private static final Duration ROLLOUT = Duration.ofMinutes(2);
  private static final Duration CONVERGE = Duration.ofSeconds(15);

  @TempDir Path dir;
  @RegisterExtension final ClusterNamespace ns = new ClusterNamespace("demo");

  @Test
  void theCommandsTheHttpApiAndEdsShowTheRealReadySet() throws Exception {
    ns.client().services().resource(Workloads.service(ns.name(), APP)).create();
    ns.client()
        .apps()
        .deployments()
        .resource(Workloads.deployment(ns.name(), APP, 3, "http"))
        .create();
    var unlabelled = Workloads.service(ns.name(), UNLABELLED);
    unlabelled.getMetadata().setLabels(Map.of());
    unlabelled.getSpec().setSelector(Map.of("app", APP));
    ns.client().services().resource(unlabelled).create();
    Workloads.awaitRolledOut(ns.client(), ns.name(), APP, ROLLOUT);

    try (AgentProcess agent =
        AgentProcess.start(ns.cluster(), dir, ns.cluster().kubeconfig(), ns.name()).awaitReady()) {
      Map<String, Pod> pods = awaitPublished(agent, 3);

      // get services: the opted-in Service with its ready count per port, never the unlabelled one.
      ControlPlane.Result services = cli(agent, "get", "services", "-n", ns.name());
      assertThat(services.exitCode()).as(services.toString()).isZero();
      assertThat(services.stdout().lines().skip(1).toList())
          .singleElement()
          .asString()
          .matches(ns.name() + " +" + APP + " +3 +3 +http=3/3 +\\d+");

      // get endpoints: each pod's address, port, and the node and zone it really runs on.
      ControlPlane.Result endpoints = cli(agent, "get", "endpoints", ns.name() + "/" + APP);
      assertThat(endpoints.exitCode()).as(endpoints.toString()).isZero();
      List<String> rows = endpoints.stdout().lines().skip(1).toList();
      assertThat(rows).hasSize(3);
      for (String row : rows) {
        String[] cells = row.trim().split(" +");
        Pod pod = pods.get(cells[0]);
        assertThat(pod).as("a pod with address %s", cells[0]).isNotNull();
        String node = pod.getSpec().getNodeName();
        assertThat(cells)
            .as(row)
            .startsWith(cells[0], "http:8080/TCP", node, zoneOf(node), pod.getMetadata().getName());
      }

      // get status: trusted, from the API server.
      ControlPlane.Result status = cli(agent, "get", "status");
      assertThat(status.exitCode()).as(status.toString()).isZero();
      assertThat(status.stdout()).containsIgnoringCase("synced");

      // The HTTP API on the socket: the same Service, the unlabelled one unknown.
      UdsHttp.Reply reply = agent.http().get("/v1/services/" + ns.name() + "/" + APP);
      assertThat(reply.status()).as(reply.body()).isEqualTo(200);
      JsonArray listed = reply.json().getJsonArray("endpoints");
      Set<String> httpIps = new TreeSet<>();
      for (int i = 0; i < listed.size(); i++) {
        httpIps.add(((JsonObject) listed.getValue(i)).getString("ip"));
      }
      assertThat(httpIps).isEqualTo(pods.keySet());
      assertThat(agent.http().get("/v1/services/" + ns.name() + "/" + UNLABELLED).status())
          .isEqualTo(404);

      // EDS over the agent's ADS stream: the pods' target port, one locality per real zone.
      try (AdsClient ads =
          AdsClient.open(agent.grpc().channel(), AdsClient.node("node-0", zoneOf("node-0")))) {
        String cluster = APP + "." + ns.name() + ".svc.cluster.local:80";
        ads.subscribe(EDS, cluster);
        ClusterLoadAssignment assignment = assignments(ads.takeAndAck(EDS)).get(0);
        Map<String, Set<String>> byZone = new TreeMap<>();
        for (LocalityLbEndpoints locality : assignment.getEndpointsList()) {
          for (LbEndpoint endpoint : locality.getLbEndpointsList()) {
            var socket = endpoint.getEndpoint().getAddress().getSocketAddress();
            byZone
                .computeIfAbsent(locality.getLocality().getZone(), z -> new TreeSet<>())
                .add(socket.getAddress() + ":" + socket.getPortValue());
          }
        }
        Map<String, Set<String>> expected = new TreeMap<>();
        pods.forEach(
            (ip, pod) ->
                expected
                    .computeIfAbsent(zoneOf(pod.getSpec().getNodeName()), z -> new TreeSet<>())
                    .add(ip + ":8080"));
        assertThat(byZone).isEqualTo(expected);
      }

      // watch: a snapshot, then the scale-up as one or more versions, ending at five endpoints.
      watchFollowsAScaleUp(agent);
    }
  }

  private void watchFollowsAScaleUp(AgentProcess agent) throws Exception {
    List<String> command = new ArrayList<>(agent.cliCommand(ns.cluster()));
    command.addAll(List.of("watch", "-n", ns.name(), "--socket", agent.socket().toString()));
    Process watch = new ProcessBuilder(command).redirectErrorStream(true).start();
    BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader in =
                  new BufferedReader(
                      new InputStreamReader(watch.getInputStream(), StandardCharsets.UTF_8))) {
                in.lines().forEach(lines::add);
              } catch (Exception e) {
                lines.add("reader failed: " + e);
              }
            },
            "watch-reader");
    reader.setDaemon(true);
    reader.start();
    try {
      String snapshot = "  ~ " + ns.name() + "/" + APP + " endpoints=3 ports=http=3/3";
      String scaled = "  ~ " + ns.name() + "/" + APP + " endpoints=5 ports=http=5/5";
      List<String> seen = new ArrayList<>();
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                lines.drainTo(seen);
                return seen.contains(snapshot);
              });
      assertThat(seen.get(0)).matches("v\\d+ reset services=1");
      ns.client().apps().deployments().inNamespace(ns.name()).withName(APP).scale(5);
      await()
          .atMost(ROLLOUT.plus(CONVERGE))
          .until(
              () -> {
                lines.drainTo(seen);
                return seen.contains(scaled);
              });
      assertThat(seen).anyMatch(line -> line.matches("v\\d+ update upserted=1 removed=0"));
      assertThat(seen).noneMatch(line -> line.contains(UNLABELLED));
    } finally {
      watch.destroy();
      if (!watch.waitFor(10, TimeUnit.SECONDS)) {
        watch.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    }
  }

  private ControlPlane.Result cli(AgentProcess agent, String... args) {
    List<String> withSocket = new ArrayList<>(List.of(args));
    withSocket.addAll(List.of("--socket", agent.socket().toString()));
    return agent.cli(ns.cluster(), withSocket.toArray(String[]::new));
  }

  /** Waits until the agent serves exactly the ready pods; returns them by address. */
  private Map<String, Pod> awaitPublished(AgentProcess agent, int replicas) {
    Set<String> ready = ReadySets.fromPods(ns.client(), ns.name(), APP, 8080);
    assertThat(ready).hasSize(replicas);
    await()
        .atMost(CONVERGE)
        .pollInterval(Duration.ofMillis(200))
        .ignoreExceptions()
        .untilAsserted(
            () ->
                assertThat(ReadySets.fromAgent(agent.grpc().resolve(ns.name(), APP)))
                    .isEqualTo(ready));
    Map<String, Pod> byIp = new TreeMap<>();
    for (Pod pod :
        ns.client().pods().inNamespace(ns.name()).withLabel("app", APP).list().getItems()) {
      byIp.put(pod.getStatus().getPodIP(), pod);
    }
    return byIp;
  }

  private String zoneOf(String node) {
    return ns.client()
        .nodes()
        .withName(node)
        .get()
        .getMetadata()
        .getLabels()
        .get("topology.kubernetes.io/zone");
  }
}
