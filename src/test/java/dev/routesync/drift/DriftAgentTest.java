package dev.routesync.drift;

import static dev.routesync.drift.DriftFixtures.NAMESPACE;
import static dev.routesync.drift.DriftFixtures.NODE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import dev.routesync.Agent;
import dev.routesync.app.Main;
import dev.routesync.config.Source;
import dev.routesync.kube.WatchSettings;
import dev.routesync.testing.AgentHarness;
import dev.routesync.testing.Http1;
import dev.routesync.testing.LogCapture;
import dev.routesync.testing.MockCluster;
import dev.routesync.testing.PodDriver;
import dev.routesync.testing.Rollout;
import dev.routesync.testing.SeedIncident;
import dev.routesync.testing.SliceController;
import dev.routesync.testing.TcpProxy;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.events.v1.Event;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The drift detector in a real agent against the CRUD mock (which indexes Pods by node, as the API
 * server does): the seed's incident replayed on this node, a normal rollout, another node's pods,
 * and an agent whose detector is off. Slices are written as the EndpointSlice controller would,
 * with the pods' uids read back from the mock.
 */
class DriftAgentTest {

  private static final String DRIFT_SERIES =
      "routesync_drift_pods{namespace=\"shop\",port=\"http\",reason=\"NamedPortNotFound\","
          + "service=\"quote\"}";
  private static final String READY_SERIES =
      "routesync_service_ready_endpoints{namespace=\"shop\",port=\"http\",service=\"quote\"}";

  private MockCluster cluster;
  private AgentHarness agent;
  private int adminPort;

  @BeforeEach
  void setUp() throws Exception {
    cluster = new MockCluster();
    adminPort = freePort();
  }

  @AfterEach
  void tearDown() throws Exception {
    cluster.close(); // first: the agent's connections drop abruptly (see MockCluster#close)
    if (agent != null) {
      agent.close();
    }
  }

  @Test
  void theIncidentOnThisNodeIsReportedWithinTenSecondsOfTheFirstNewPodBecomingReady()
      throws Exception {
    apply(quoteService());
    List<Pod> old = createPods("quote-old-", 8, "http", NODE);
    apply(DriftFixtures.slice("quote", "quote-old", "http", old));
    agent = AgentHarness.startWithDrift(cluster.url(), NODE, Duration.ofSeconds(30), adminPort);
    await().atMost(Duration.ofSeconds(10)).until(() -> metrics().contains(READY_SERIES + " 8.0"));
    assertThat(drift().getString("detector")).isEqualTo("on");
    assertThat(drift().getJsonArray("drift")).isEmpty();

    // The rollout: the first new pod, with the renamed port, Ready and listed in a ports: null
    // slice (it resolves none of the Service's ports).
    List<Pod> renamed = new ArrayList<>(createPods("quote-new-", 1, "http-api", NODE));
    long readyAt = System.nanoTime();
    apply(DriftFixtures.slice("quote", "quote-new", null, renamed));

    await().atMost(Duration.ofSeconds(10)).until(() -> metrics().contains(DRIFT_SERIES + " 1.0"));
    long latencyMillis = (System.nanoTime() - readyAt) / 1_000_000;
    System.out.println(
        "drift detector latency: "
            + latencyMillis
            + " ms from the first new pod Ready to /metrics");
    // The Event, recorded off the sync context: it may land a moment after the gauge.
    await().atMost(Duration.ofSeconds(10)).until(() -> !events("quote-new-0").isEmpty());
    System.out.println(
        "drift detector latency: "
            + (System.nanoTime() - readyAt) / 1_000_000
            + " ms from the first new pod Ready to its Event");
    Event event = events("quote-new-0").get(0);
    assertThat(event.getType()).isEqualTo("Warning");
    assertThat(event.getReason()).isEqualTo("PodNotInServiceEndpoints");
    assertThat(event.getReportingController()).isEqualTo("routesync.dev/drift-detector");
    assertThat(event.getReportingInstance()).isEqualTo("routesync-" + NODE);
    assertThat(event.getRegarding().getKind()).isEqualTo("Pod");
    assertThat(event.getRegarding().getUid()).isEqualTo(renamed.get(0).getMetadata().getUid());
    assertThat(event.getRelated().getKind()).isEqualTo("Service");
    assertThat(event.getRelated().getName()).isEqualTo("quote");
    assertThat(event.getNote()).contains("port http", "NamedPortNotFound", "http-api");
    JsonArray listed = drift().getJsonArray("drift");
    assertThat(listed).hasSize(1);
    assertThat(listed.getJsonObject(0).getString("pod")).isEqualTo("quote-new-0");
    assertThat(listed.getJsonObject(0).getString("reason")).isEqualTo("NamedPortNotFound");
    assertThat(listed.getJsonObject(0).getString("message")).contains("http-api");
    Cli get = cli("get", "drift", "--socket", agent.socket().toString());
    assertThat(get.exitCode()).as(get.err()).isZero();
    assertThat(get.out())
        .startsWith("NAMESPACE   SERVICE   PORT   POD           REASON              AGE")
        .contains("shop        quote     http   quote-new-0   NamedPortNotFound");

    // The rest of the rollout: old pods go two at a time, new ones come; none is ever an endpoint.
    for (int step = 0; step < 4; step++) {
      for (int i = 0; i < 2; i++) {
        int index = renamed.size();
        if (index < 8) {
          renamed.add(createPod("quote-new-" + index, "http-api", NODE));
        }
      }
      apply(DriftFixtures.slice("quote", "quote-new", null, renamed));
      List<Pod> gone = old.subList(0, 2);
      for (Pod pod : gone) {
        cluster.client().resource(pod).delete();
      }
      old = new ArrayList<>(old.subList(2, old.size()));
      apply(DriftFixtures.slice("quote", "quote-old", "http", old));
    }
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                metrics().contains(DRIFT_SERIES + " 8.0")
                    && metrics().contains(READY_SERIES + " 0.0"));
    assertThat(drift().getJsonArray("drift")).hasSize(8);
    await().atMost(Duration.ofSeconds(10)).until(() -> events(null).size() == 8);
    Cli json = cli("get", "drift", "--socket", agent.socket().toString(), "-o", "json");
    assertThat(new JsonObject(json.out()).getJsonArray("drift")).hasSize(8);
    Cli yaml = cli("get", "drift", "--socket", agent.socket().toString(), "-o", "yaml");
    assertThat(yaml.out()).contains("detector: \"on\"").contains("reason: \"NamedPortNotFound\"");
  }

  @Test
  void theSeedsRolloutIsCaughtAtItsFirstNewPodsWhileTheOldOnesStillServe() throws Exception {
    // The same incident with the EndpointSlice controller's model writing the slices, and the
    // Deployment's rollout (maxSurge 2, maxUnavailable 2) driven step by step.
    String drift =
        "routesync_drift_pods{namespace=\"prod\",port=\"http\",reason=\"NamedPortNotFound\","
            + "service=\"quote\"}";
    String ready =
        "routesync_service_ready_endpoints{namespace=\"prod\",port=\"http\",service=\"quote\"}";
    try (SliceController controller = SliceController.start(cluster)) {
      PodDriver driver = new PodDriver(cluster.client());
      cluster.client().resource(SeedIncident.service()).create();
      driver.deploy(SeedIncident.deployment(), SeedIncident.REPLICAS, NODE);
      controller.awaitSynced();
      agent = AgentHarness.startWithDrift(cluster.url(), NODE, Duration.ofSeconds(30), adminPort);
      await().atMost(Duration.ofSeconds(10)).until(() -> metrics().contains(ready + " 8.0"));

      Rollout rollout =
          driver.rollout(
              SeedIncident.deployment(),
              SeedIncident.renamed(),
              NODE,
              SeedIncident.REPLICAS,
              SeedIncident.MAX_SURGE,
              SeedIncident.MAX_UNAVAILABLE);
      Rollout.Step first = rollout.step();
      long readyAt = System.nanoTime();
      assertThat(first.kind()).isEqualTo(Rollout.Kind.SURGE);

      await().atMost(Duration.ofSeconds(10)).until(() -> metrics().contains(drift + " 2.0"));
      System.out.println(
          "drift detector latency (controller model): "
              + (System.nanoTime() - readyAt) / 1_000_000
              + " ms from the first new pods Ready to /metrics");
      assertThat(metrics()).as("the old pods still serve").contains(ready + " 8.0");

      rollout.finish();
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> metrics().contains(drift + " 8.0") && metrics().contains(ready + " 0.0"));
      assertThat(drift().getJsonArray("drift")).hasSize(8);
    }
  }

  @Test
  void aNormalRolloutReportsNoDrift() throws Exception {
    apply(quoteService());
    List<Pod> old = createPods("quote-old-", 8, "http", NODE);
    apply(DriftFixtures.slice("quote", "quote-old", "http", old));
    agent = AgentHarness.startWithDrift(cluster.url(), NODE, Duration.ofSeconds(1), adminPort);
    await().atMost(Duration.ofSeconds(10)).until(() -> metrics().contains(READY_SERIES + " 8.0"));

    List<Pod> next = new ArrayList<>();
    for (int step = 0; step < 4; step++) {
      next.add(createPod("quote-new-" + next.size(), "http", NODE));
      next.add(createPod("quote-new-" + next.size(), "http", NODE));
      apply(DriftFixtures.slice("quote", "quote-new", "http", next));
      for (Pod pod : old.subList(0, 2)) {
        cluster.client().resource(pod).delete();
      }
      old = new ArrayList<>(old.subList(2, old.size()));
      apply(DriftFixtures.slice("quote", "quote-old", "http", old));
    }

    await().atMost(Duration.ofSeconds(10)).until(() -> metrics().contains(READY_SERIES + " 8.0"));
    // Longer than the grace: a NotInEndpoints would have been reported by now.
    await()
        .during(Duration.ofMillis(1500))
        .atMost(Duration.ofSeconds(5))
        .until(() -> drift().getJsonArray("drift").isEmpty());
    assertThat(metrics()).doesNotContain("routesync_drift_pods{");
  }

  @Test
  void podsOfAnotherNodeNeverDriftHere() throws Exception {
    apply(quoteService());
    Pod elsewhere = createPod("quote-b", "http-api", "node-b");
    Pod here = createPod("quote-a", "http-api", NODE);
    apply(DriftFixtures.slice("quote", "quote-x", null, List.of(elsewhere, here)));
    agent = AgentHarness.startWithDrift(cluster.url(), NODE, Duration.ofSeconds(1), adminPort);

    await().atMost(Duration.ofSeconds(10)).until(() -> metrics().contains(DRIFT_SERIES + " 1.0"));
    assertThat(drift().getJsonArray("drift"))
        .singleElement()
        .satisfies(entry -> assertThat(((JsonObject) entry).getString("pod")).isEqualTo("quote-a"));
  }

  @Test
  void aSliceChangedWhileTheWatchWasAwayIsSeenByTheRelistThatFollows() throws Exception {
    // The relist path: a new generation's slices reach the detector as the compact records its
    // store made of them, not as events. The API server goes away; when it comes back (another
    // mock on the same address), quote's slice has changed: this node's pod is no longer listed
    // and one of the two other nodes' endpoints is gone.
    String notInEndpoints =
        "routesync_drift_pods{namespace=\"shop\",port=\"http\",reason=\"NotInEndpoints\","
            + "service=\"quote\"}";
    try (MockCluster after = new MockCluster();
        TcpProxy proxy = new TcpProxy(cluster.port())) {
      Pod here = createPod(cluster, "quote-a", "http", NODE);
      apply(cluster, quoteService());
      apply(
          cluster,
          DriftFixtures.slice(
              "quote",
              "quote-x",
              "http",
              List.of(here, elsewhere("quote-b"), elsewhere("quote-c"))));
      Pod hereAfter = createPod(after, "quote-a", "http", NODE);
      assertThat(hereAfter.getMetadata().getUid()).isNotNull();
      apply(after, quoteService());
      apply(after, DriftFixtures.slice("quote", "quote-x", "http", List.of(elsewhere("quote-b"))));
      agent =
          AgentHarness.startWith(
                  proxy.url(),
                  c ->
                      c.withNodeName(NODE)
                          .withDrift(new DriftSettings(true, Duration.ofSeconds(1)))
                          .withWatch(relistingAfter(c.watch(), Duration.ofMillis(300))),
                  adminPort)
              .cutOnClose(proxy);
      await().atMost(Duration.ofSeconds(10)).until(() -> metrics().contains(READY_SERIES + " 3.0"));

      proxy.cut();
      // Down for longer than relist-after: the watches relist when the server is back.
      await().atMost(Duration.ofSeconds(10)).until(() -> agent.disconnectedSeconds() > 0.5);
      proxy.restore(after.port());

      await()
          .atMost(Duration.ofSeconds(15))
          .until(
              () ->
                  metrics().contains(READY_SERIES + " 1.0")
                      && metrics().contains(notInEndpoints + " 1.0"));
      assertThat(agent.counter("routesync.relists", "reason", "outage")).isPositive();
      assertThat(drift().getJsonArray("drift"))
          .singleElement()
          .satisfies(
              entry -> {
                assertThat(((JsonObject) entry).getString("pod")).isEqualTo("quote-a");
                assertThat(((JsonObject) entry).getString("reason")).isEqualTo("NotInEndpoints");
              });
    } finally {
      if (agent != null) {
        agent.close();
        agent = null;
      }
    }
  }

  @Test
  void withoutANodeNameTheDetectorIsOffSaysWhyOnceAndTheAgentRuns() throws Exception {
    apply(quoteService());
    try (LogCapture log = new LogCapture(Agent.class.getName(), Level.INFO)) {
      agent = AgentHarness.startWithDrift(cluster.url(), "", Duration.ofSeconds(1), adminPort);

      assertThat(log.lines()).filteredOn(line -> line.contains("drift detector off")).hasSize(1);
    }
    JsonObject body = drift();
    assertThat(body.getString("detector")).isEqualTo("off");
    assertThat(body.getString("reason")).contains("no node name");
    assertThat(body.getJsonArray("drift")).isEmpty();
    assertThat(agent.agent().readiness().isReady()).isTrue();
    Cli get = cli("get", "drift", "--socket", agent.socket().toString());
    assertThat(get.exitCode()).as(get.err()).isZero();
    assertThat(get.out()).isEmpty();
    assertThat(get.err()).contains("drift detector is off", "no node name");
  }

  @Test
  void withTheEndpointsSourceTheDetectorIsOffAndSaysWhy() throws Exception {
    agent =
        AgentHarness.startWith(
            cluster.url(),
            c -> c.withSource(Source.ENDPOINTS).withNodeName(NODE).withDrift(DriftSettings.DEFAULT),
            adminPort);

    assertThat(drift().getString("detector")).isEqualTo("off");
    assertThat(drift().getString("reason")).contains("--source endpoints");
  }

  // ---- helpers ---------------------------------------------------------------------------------

  private static io.fabric8.kubernetes.api.model.Service quoteService() {
    return DriftFixtures.quote("http", null);
  }

  private void apply(io.fabric8.kubernetes.api.model.HasMetadata object) {
    apply(cluster, object);
  }

  private static void apply(MockCluster on, io.fabric8.kubernetes.api.model.HasMetadata object) {
    on.client().resource(object).createOr(NonDeletingOperation::update);
  }

  /** A Ready pod of another node, listed in slices only (this node's Pods watch never sees it). */
  private static Pod elsewhere(String name) {
    return DriftFixtures.pod(name, "uid-" + name, "node-b", "http", true);
  }

  private static WatchSettings relistingAfter(WatchSettings watch, Duration relistAfter) {
    return new WatchSettings(
        watch.namespaces(),
        watch.labelSelector(),
        relistAfter,
        watch.resync(),
        watch.backoffMin(),
        watch.backoffMax(),
        watch.connectivityCheck(),
        watch.watchSilence());
  }

  private List<Pod> createPods(String prefix, int count, String portName, String node) {
    List<Pod> pods = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      pods.add(createPod(prefix + i, portName, node));
    }
    return pods;
  }

  /** Creates a Ready pod and reads it back: the mock assigns its own uid. */
  private Pod createPod(String name, String portName, String node) {
    return createPod(cluster, name, portName, node);
  }

  private static Pod createPod(MockCluster on, String name, String portName, String node) {
    Pod pod = DriftFixtures.pod(name, null, node, portName, true);
    pod.getMetadata().setResourceVersion(null);
    on.client().resource(pod).create();
    return on.client().pods().inNamespace(NAMESPACE).withName(name).get();
  }

  /** The Events regarding {@code pod} (every Event when null) in the pods' namespace. */
  private List<Event> events(String pod) {
    return cluster.client().events().v1().events().inNamespace(NAMESPACE).list().getItems().stream()
        .filter(e -> pod == null || pod.equals(e.getRegarding().getName()))
        .toList();
  }

  private String metrics() throws Exception {
    return Http1.get("http://127.0.0.1:" + adminPort + "/metrics").body();
  }

  /** The drift report, on the socket: the admin port does not serve it. */
  private JsonObject drift() throws Exception {
    var reply = new dev.routesync.testing.UdsHttp(agent.socket()).get("/v1/drift");
    assertThat(reply.status()).isEqualTo(200);
    return reply.json();
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

  private static int freePort() throws Exception {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
