package dev.routesync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.routesync.app.Main;
import dev.routesync.gate.GateCli;
import dev.routesync.gate.WatchCloseSwallowingProxy;
import dev.routesync.testing.AgentHarness;
import dev.routesync.testing.Http1;
import dev.routesync.testing.MockCluster;
import dev.routesync.testing.PodDriver;
import dev.routesync.testing.Rollout;
import dev.routesync.testing.SeedIncident;
import dev.routesync.testing.SliceController;
import io.fabric8.kubernetes.api.model.events.v1.Event;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The seed's incident (002) replayed end to end, and caught three times: {@code routesync lint}
 * before merge, {@code routesync gate} during the rollout while the old pods still serve, and the
 * drift detector of the agent on the new pods' node. The EndpointSlice controller's model writes
 * the slices (a pod that resolves no port is listed ready in a {@code ports: null} slice), and the
 * Deployment's rollout replaces the 8 pods two at a time, as the seed tells it.
 */
@Timeout(180)
class SeedIncidentReplayTest {

  private static final String NODE = "node-a";
  private static final String NS = SeedIncident.NAMESPACE;
  private static final String DRIFT =
      "routesync_drift_pods{namespace=\"prod\",port=\"http\",reason=\"NamedPortNotFound\","
          + "service=\"quote\"}";
  private static final String READY =
      "routesync_service_ready_endpoints{namespace=\"prod\",port=\"http\",service=\"quote\"}";
  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path dir;

  private MockCluster cluster;
  private SliceController controller;
  private PodDriver pods;
  private WatchCloseSwallowingProxy gateProxy;
  private Path kubeconfig;
  private AgentHarness agent;
  private int adminPort;

  @BeforeEach
  void startTheCluster() throws Exception {
    cluster = new MockCluster();
    controller = SliceController.start(cluster);
    pods = new PodDriver(cluster.client());
    gateProxy = new WatchCloseSwallowingProxy(cluster.port());
    kubeconfig = GateCli.kubeconfig(dir, gateProxy.url());
    try (ServerSocket socket = new ServerSocket(0)) {
      adminPort = socket.getLocalPort();
    }
    cluster.client().resource(SeedIncident.service()).create();
    pods.deploy(SeedIncident.deployment(), SeedIncident.REPLICAS, NODE);
    controller.awaitSynced();
    agent = AgentHarness.startWithDrift(cluster.url(), NODE, Duration.ofSeconds(30), adminPort);
    await().atMost(WAIT).until(() -> metrics().contains(READY + " 8.0"));
  }

  @AfterEach
  void stop() throws Exception {
    controller.close();
    gateProxy.close();
    cluster.close(); // before the agent: see MockCluster#close
    if (agent != null) {
      agent.close();
    }
  }

  @Test
  void lintGateAndTheDriftDetectorEachCatchTheRenamedPort() throws Exception {
    // 1. Before merge: the original manifests lint clean, the renamed port is RS001.
    Cli clean = cli("lint", "src/test/resources/lint/incident");
    assertThat(clean.exitCode()).as(clean.out() + clean.err()).isZero();
    Cli renamed = cli("lint", "src/test/resources/lint/incident-renamed");
    assertThat(renamed.exitCode()).as(renamed.err()).isEqualTo(1);
    assertThat(renamed.out())
        .contains("RS001", "quote", "port http", "Deployment", "http-api")
        .contains("service.yaml:");

    // 2. During the rollout: the gate watches while the old pods serve.
    GateCli.Running gate =
        new GateCli.Running(
            "gate",
            "-n",
            NS,
            "--service",
            "quote",
            "--kubeconfig",
            kubeconfig.toString(),
            "--timeout",
            "5m",
            "--settle",
            "10m");
    await().atMost(WAIT).until(() -> gate.errSoFar().contains("settling for 10m"));

    Rollout rollout =
        pods.rollout(
            SeedIncident.deployment(),
            SeedIncident.renamed(),
            NODE,
            SeedIncident.REPLICAS,
            SeedIncident.MAX_SURGE,
            SeedIncident.MAX_UNAVAILABLE);
    Rollout.Step first = rollout.step();
    long readyAt = System.nanoTime();
    assertThat(first.kind()).isEqualTo(Rollout.Kind.SURGE);
    assertThat(first.pods()).hasSize(2);

    GateCli.Result verdict = gate.result.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    long gateMillis = (System.nanoTime() - readyAt) / 1_000_000;
    assertThat(verdict.exitCode()).as(verdict.err()).isEqualTo(1);
    assertThat(verdict.out()).contains("NamedPortNotFound", "http-api");

    // 3. At run time, on the new pods' node: the gauge, the Event, /v1/drift.
    await().atMost(Duration.ofSeconds(10)).until(() -> metrics().contains(DRIFT + " 2.0"));
    long driftMillis = (System.nanoTime() - readyAt) / 1_000_000;
    await().atMost(Duration.ofSeconds(10)).until(() -> events().size() == 2);
    long eventMillis = (System.nanoTime() - readyAt) / 1_000_000;
    assertThat(events())
        .allSatisfy(
            event -> {
              assertThat(event.getReason()).isEqualTo("PodNotInServiceEndpoints");
              assertThat(event.getType()).isEqualTo("Warning");
              assertThat(event.getNote()).contains("http", "NamedPortNotFound", "http-api");
            });
    // The old pods still serve: the incident was caught before any of them went.
    assertThat(rollout.oldPods()).hasSize(8);
    assertThat(metrics()).contains(READY + " 8.0");
    assertThat(getServices().out()).contains("http=8/10");
    System.out.printf(
        "seed incident replay: from the first new pods Ready, gate exit 1 in %d ms, drift gauge in"
            + " %d ms, Events in %d ms%n",
        gateMillis, driftMillis, eventMillis);

    // The rest of the rollout, as it went in September: the Service empties.
    rollout.finish();
    controller.awaitSynced();
    await()
        .atMost(WAIT)
        .until(() -> metrics().contains(DRIFT + " 8.0") && metrics().contains(READY + " 0.0"));
    await().atMost(WAIT).until(() -> getServices().out().contains("http=0/8"));
  }

  @Test
  void aNormalRolloutRaisesNothingAndTheGatePasses() throws Exception {
    Rollout rollout =
        pods.rollout(
            SeedIncident.deployment(),
            SeedIncident.nextImage(),
            NODE,
            SeedIncident.REPLICAS,
            SeedIncident.MAX_SURGE,
            SeedIncident.MAX_UNAVAILABLE);
    while (!rollout.done()) {
      rollout.step();
      controller.awaitSynced();
    }
    GateCli.Result verdict =
        GateCli.run(
            "gate",
            "-n",
            NS,
            "--service",
            "quote",
            "--kubeconfig",
            kubeconfig.toString(),
            "--timeout",
            "1m",
            "--settle",
            "1s");
    assertThat(verdict.exitCode()).as(verdict.err()).isZero();
    await().atMost(WAIT).until(() -> getServices().out().contains("http=8/8"));
    assertThat(metrics()).doesNotContain("routesync_drift_pods{").contains(READY + " 8.0");
    assertThat(events()).isEmpty();
  }

  private List<Event> events() {
    return cluster.client().events().v1().events().inNamespace(NS).list().getItems();
  }

  private String metrics() throws Exception {
    return Http1.get("http://127.0.0.1:" + adminPort + "/metrics").body();
  }

  private Cli getServices() {
    return cli("get", "services", "-n", NS, "--socket", agent.socket().toString());
  }

  private record Cli(int exitCode, String out, String err) {}

  private static Cli cli(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine commandLine = Main.commandLine();
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    int exitCode = commandLine.execute(args);
    return new Cli(exitCode, out.toString(), err.toString());
  }
}
