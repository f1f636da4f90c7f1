package dev.routesync.gate;

import static dev.routesync.gate.GateObjects.NS;
import static dev.routesync.gate.GateObjects.containerPort;
import static dev.routesync.gate.GateObjects.namedPort;
import static dev.routesync.gate.GateObjects.pod;
import static dev.routesync.gate.GateObjects.quote;
import static dev.routesync.gate.GateObjects.service;
import static dev.routesync.gate.GateObjects.slice;
import static dev.routesync.gate.GateObjects.slicePort;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.routesync.testing.MockCluster;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code routesync gate} in process against fabric8's CRUD mock API server, with the slices written
 * by the test exactly as the EndpointSlice controller writes them (uids read back from the mock,
 * which assigns its own).
 */
@Timeout(60)
class GateAgainstClusterTest {

  private static final Duration WAIT = Duration.ofSeconds(20);

  @TempDir Path dir;

  private MockCluster cluster;
  private WatchCloseSwallowingProxy proxy;
  private Path kubeconfig;

  @BeforeEach
  void start() throws Exception {
    cluster = new MockCluster();
    proxy = new WatchCloseSwallowingProxy(cluster.port());
    kubeconfig = GateCli.kubeconfig(dir, proxy.url());
  }

  @AfterEach
  void stop() throws Exception {
    proxy.close();
    cluster.close();
  }

  private String[] gate(String... args) {
    List<String> all =
        new ArrayList<>(List.of("gate", "-n", NS, "--kubeconfig", kubeconfig.toString()));
    all.addAll(List.of(args));
    return all.toArray(String[]::new);
  }

  /** Creates the pod and returns it as the mock stored it, with the uid it assigned. */
  private Pod create(Pod pod) {
    return cluster.client().pods().inNamespace(NS).resource(pod).create();
  }

  private List<Pod> createPods(String prefix, int n, ContainerPort port, int firstIp) {
    List<Pod> pods = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      pods.add(create(pod(prefix + i, "quote", "10.0.0." + (firstIp + i), true, port)));
    }
    return pods;
  }

  private void apply(EndpointSlice slice) {
    cluster.apply(slice);
  }

  private static EndpointSlice withHttp(String name, List<Pod> pods) {
    return slice(name, "quote", List.of(slicePort("http", 8080)), pods);
  }

  private void createQuote() {
    cluster.client().services().inNamespace(NS).resource(quote()).create();
  }

  @Test
  void eightReadyPodsInTheSlicesPassAfterTheSettleTime() {
    createQuote();
    List<Pod> pods = createPods("quote-a-", 8, containerPort("http", 8080), 1);
    apply(withHttp("quote-x", pods));

    GateCli.Result result = GateCli.run(gate("--service", "quote", "--settle", "300ms"));

    assertThat(result.exitCode()).as(result.err()).isZero();
    assertThat(result.out())
        .isEqualTo(
            "pass: every expected pod is a ready endpoint of its port of 1 Service, for 300ms\n"
                + "  shop/quote port http (80 -> http/TCP): 8 expected, 8 ready, 0 missing\n");
    assertThat(result.err())
        .startsWith(
            "gate: watching pods, services and endpointslices in namespace shop (--service quote;"
                + " timeout 5m, settle 300ms)\n")
        .contains("every expected pod is a ready endpoint; settling for 300ms")
        .endsWith("gate: " + result.out().lines().findFirst().orElseThrow() + "\n");
  }

  @Test
  void theIncidentFailsAtTheFirstRenamedPodWhileTheOldPodsStillServe() throws Exception {
    createQuote();
    List<Pod> old = createPods("quote-a-", 8, containerPort("http", 8080), 1);
    apply(withHttp("quote-x", old));
    GateCli.Running gate =
        new GateCli.Running(gate("--service", "quote", "--timeout", "5m", "--settle", "1m"));
    await().atMost(WAIT).until(() -> gate.errSoFar().contains("settling for 1m"));

    // The rollout: the first new pod is Ready, its container port renamed to http-api; the
    // controller lists it, ready, in a slice without ports.
    long readyAt = System.nanoTime();
    Pod first =
        create(pod("quote-b-0", "quote", "10.0.1.1", true, containerPort("http-api", 8080)));
    apply(slice("quote-y", "quote", null, List.of(first)));
    long listedAt = System.nanoTime();
    GateCli.Result result = gate.result.get(30, TimeUnit.SECONDS);
    long exitedAt = System.nanoTime();

    System.out.printf(
        "gate incident: exit %d %.0f ms after the first renamed pod was Ready (%.0f ms after its"
            + " ports:null slice was written)%n",
        result.exitCode(), (exitedAt - readyAt) / 1e6, (exitedAt - listedAt) / 1e6);
    assertThat(result.exitCode()).as(result.err()).isEqualTo(1);
    assertThat(Duration.ofNanos(exitedAt - readyAt)).isLessThan(Duration.ofSeconds(5));
    assertThat(result.out())
        .isEqualTo(
            "fail: pod quote-b-0 is Ready but can never be an endpoint: NamedPortNotFound, port"
                + " http (80 -> http/TCP): no container port named http; the pod declares"
                + " http-api (closest: http-api)\n"
                + "  shop/quote port http (80 -> http/TCP): 9 expected, 8 ready, 1 missing\n"
                + "    quote-b-0 NamedPortNotFound: port http (80 -> http/TCP): no container port"
                + " named http; the pod declares http-api (closest: http-api)\n");
  }

  @Test
  void aNormalRolloutTwoPodsAtATimeNeverFailsTheGateAndPassesAtTheEnd() throws Exception {
    createQuote();
    List<Pod> old = new ArrayList<>(createPods("quote-a-", 8, containerPort("http", 8080), 1));
    apply(withHttp("quote-x", old));
    // Beside the rollout, with a settle that outlasts it: this gate could only end by failing.
    GateCli.Running during =
        new GateCli.Running(gate("--service", "quote", "--timeout", "10m", "--settle", "10m"));
    await().atMost(WAIT).until(() -> during.errSoFar().contains("settling for 10m"));

    List<Pod> fresh = new ArrayList<>();
    for (int step = 0; step < 4; step++) {
      // Two new pods start Ready; the controller then lists them with the port.
      List<Pod> two =
          createPods("quote-b-" + step + "-", 2, containerPort("http", 8080), 100 + 2 * step);
      fresh.addAll(two);
      apply(withHttp("quote-y", fresh));
      // Two old pods go; the controller drops them from their slice.
      for (Pod gone : List.copyOf(old.subList(0, 2))) {
        cluster.client().pods().inNamespace(NS).resource(gone).delete();
        old.remove(gone);
      }
      apply(withHttp("quote-x", old));
    }

    assertThat(during.result).as(during.errSoFar()).isNotDone();
    during.interrupt();
    GateCli.Result interrupted = during.result.get(30, TimeUnit.SECONDS);
    assertThat(interrupted.exitCode()).isEqualTo(3);
    assertThat(interrupted.err()).doesNotContain("NamedPortNotFound").doesNotContain("fail:");

    GateCli.Result after = GateCli.run(gate("--service", "quote", "--settle", "300ms"));
    assertThat(after.exitCode()).as(after.err()).isZero();
    assertThat(after.out()).contains("8 expected, 8 ready, 0 missing");
  }

  @Test
  void yamlIsTheJsonVerdictAndNameListsTheServicesChecked() {
    createQuote();
    List<Pod> old = createPods("quote-a-", 8, containerPort("http", 8080), 1);
    List<Pod> renamed = createPods("quote-b-", 2, containerPort("http-api", 8080), 101);
    apply(withHttp("quote-x", old));
    apply(slice("quote-y", "quote", null, renamed));

    GateCli.Result yaml = GateCli.run(gate("--service", "quote", "-o", "yaml"));
    GateCli.Result name = GateCli.run(gate("--service", "quote", "-o", "name"));

    assertThat(yaml.exitCode()).as(yaml.err()).isEqualTo(1);
    java.util.Map<?, ?> verdict =
        io.fabric8.kubernetes.client.utils.Serialization.unmarshal(yaml.out(), java.util.Map.class);
    assertThat(verdict.get("result")).isEqualTo("fail");
    assertThat(List.<Object>copyOf(verdict.keySet()))
        .containsExactly("result", "message", "elapsedMillis", "services");
    assertThat(name.exitCode()).as(name.err()).isEqualTo(1);
    assertThat(name.out()).isEqualTo("service/quote\n");
  }

  @Test
  void theIncidentInJsonNamesEachMissingPodWithItsReason() {
    createQuote();
    List<Pod> old = createPods("quote-a-", 8, containerPort("http", 8080), 1);
    List<Pod> renamed = createPods("quote-b-", 2, containerPort("http-api", 8080), 101);
    apply(withHttp("quote-x", old));
    apply(slice("quote-y", "quote", null, renamed));

    GateCli.Result result = GateCli.run(gate("--service", "quote", "-o", "json"));

    assertThat(result.exitCode()).as(result.err()).isEqualTo(1);
    JsonObject json = new JsonObject(result.out());
    assertThat(json.fieldNames()).containsExactly("result", "message", "elapsedMillis", "services");
    assertThat(json.getString("result")).isEqualTo("fail");
    assertThat(json.getString("message")).startsWith("fail: pod quote-b-0 is Ready");
    JsonArray services = json.getJsonArray("services");
    assertThat(services).hasSize(1);
    JsonObject quote = services.getJsonObject(0);
    assertThat(quote.fieldNames()).containsExactly("namespace", "name", "checked", "note", "ports");
    assertThat(quote.getString("namespace")).isEqualTo("shop");
    assertThat(quote.getString("name")).isEqualTo("quote");
    assertThat(quote.getBoolean("checked")).isTrue();
    assertThat(quote.getValue("note")).isNull();
    JsonObject port = quote.getJsonArray("ports").getJsonObject(0);
    assertThat(port.fieldNames())
        .containsExactly("name", "description", "expected", "ready", "missing");
    assertThat(port.getString("name")).isEqualTo("http");
    assertThat(port.getString("description")).isEqualTo("port http (80 -> http/TCP)");
    assertThat(port.getInteger("expected")).isEqualTo(10);
    assertThat(port.getInteger("ready")).isEqualTo(8);
    JsonArray missing = port.getJsonArray("missing");
    assertThat(missing).hasSize(2);
    JsonObject b0 = missing.getJsonObject(0);
    assertThat(b0.fieldNames())
        .containsExactly("pod", "uid", "reason", "message", "declaredPorts", "closest");
    assertThat(b0.getString("pod")).isEqualTo("quote-b-0");
    assertThat(b0.getString("uid")).isEqualTo(renamed.get(0).getMetadata().getUid());
    assertThat(b0.getString("reason")).isEqualTo("NamedPortNotFound");
    assertThat(b0.getJsonArray("declaredPorts").getList()).containsExactly("http-api");
    assertThat(b0.getString("closest")).isEqualTo("http-api");
    assertThat(missing.getJsonObject(1).getString("pod")).isEqualTo("quote-b-1");
  }

  @Test
  void aProtocolMismatchFailsEarly() {
    createQuote();
    List<Pod> pods = createPods("quote-a-", 2, containerPort("http", 8080, "UDP"), 1);
    apply(slice("quote-y", "quote", null, pods));

    GateCli.Result result = GateCli.run(gate("--service", "quote", "--timeout", "5m"));

    assertThat(result.exitCode()).as(result.err()).isEqualTo(1);
    assertThat(result.out())
        .startsWith(
            "fail: pod quote-a-0 is Ready but can never be an endpoint: ProtocolMismatch, port"
                + " http (80 -> http/TCP): container app declares http as UDP, the Service wants"
                + " TCP\n");
  }

  @Test
  void aPodNotYetInTheSlicesIsWaitedForUntilTheControllerCatchesUp() throws Exception {
    createQuote();
    List<Pod> pods = createPods("quote-a-", 2, containerPort("http", 8080), 1);
    apply(withHttp("quote-x", pods.subList(0, 1)));
    GateCli.Running gate =
        new GateCli.Running(gate("--service", "quote", "--timeout", "30s", "--settle", "200ms"));
    await()
        .atMost(WAIT)
        .until(() -> gate.errSoFar().contains("1 missing: quote-a-1 NotInEndpoints"));

    apply(withHttp("quote-x", pods));

    GateCli.Result result = gate.result.get(30, TimeUnit.SECONDS);
    assertThat(result.exitCode()).as(result.err()).isZero();
    assertThat(result.err()).contains("2 expected, 2 ready, 0 missing");
  }

  @Test
  void aPodNeverInTheSlicesFailsAtTheTimeoutListingItAsNotInEndpoints() {
    createQuote();
    List<Pod> pods = createPods("quote-a-", 2, containerPort("http", 8080), 1);
    apply(withHttp("quote-x", pods.subList(0, 1)));

    long start = System.nanoTime();
    GateCli.Result result =
        GateCli.run(gate("--service", "quote", "--timeout", "1s", "--settle", "0"));

    assertThat(result.exitCode()).as(result.err()).isEqualTo(1);
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .isGreaterThanOrEqualTo(Duration.ofSeconds(1));
    assertThat(result.out())
        .isEqualTo(
            "fail: timed out after 1s: 1 expected pod is not a ready endpoint\n"
                + "  shop/quote port http (80 -> http/TCP): 2 expected, 1 ready, 1 missing\n"
                + "    quote-a-1 NotInEndpoints: port http (80 -> http/TCP): resolves to 8080,"
                + " but the pod is not a ready endpoint with this port\n");
  }

  @Test
  void aSelectorPicksTheServicesOnTheApiServerAndEachIsChecked() {
    cluster.client().services().inNamespace(NS).resource(quote()).create();
    cluster
        .client()
        .services()
        .inNamespace(NS)
        .resource(service("quote-admin", "quote", "front", namedPort("admin", 81, "http")))
        .create();
    // Another tier, with no pod: it would fail, but -l tier=front leaves it out.
    cluster
        .client()
        .services()
        .inNamespace(NS)
        .resource(service("billing", "billing", "back", namedPort("http", 80, "http")))
        .create();
    List<Pod> pods = createPods("quote-a-", 3, containerPort("http", 8080), 1);
    apply(withHttp("quote-x", pods));
    apply(slice("quote-admin-x", "quote-admin", List.of(slicePort("admin", 8080)), pods));

    GateCli.Result result = GateCli.run(gate("-l", "tier=front", "--settle", "0"));

    assertThat(result.exitCode()).as(result.err()).isZero();
    assertThat(result.out())
        .isEqualTo(
            "pass: every expected pod is a ready endpoint of all 2 ports of 2 Services\n"
                + "  shop/quote port http (80 -> http/TCP): 3 expected, 3 ready, 0 missing\n"
                + "  shop/quote-admin port admin (81 -> http/TCP): 3 expected, 3 ready, 0"
                + " missing\n");
  }

  @Test
  void severalServicesAndAMultiPortServiceWithOnePortMissing() {
    createQuote();
    cluster
        .client()
        .services()
        .inNamespace(NS)
        .resource(
            service(
                "quote-full",
                "quote",
                "front",
                namedPort("http", 80, "http"),
                namedPort("grpc", 9000, "grpc")))
        .create();
    List<Pod> pods = createPods("quote-a-", 2, containerPort("http", 8080), 1);
    apply(withHttp("quote-x", pods));
    // The pods declare no grpc port: the controller lists them with http only.
    apply(slice("quote-full-x", "quote-full", List.of(slicePort("http", 8080)), pods));

    GateCli.Result result = GateCli.run(gate("--service", "quote,quote-full", "--settle", "0"));

    assertThat(result.exitCode()).as(result.err()).isEqualTo(1);
    assertThat(result.out())
        .isEqualTo(
            "fail: pod quote-a-0 is Ready but can never be an endpoint: NamedPortNotFound, port"
                + " grpc (9000 -> grpc/TCP): no container port named grpc; the pod declares http"
                + " (closest: http)\n"
                + "  shop/quote port http (80 -> http/TCP): 2 expected, 2 ready, 0 missing\n"
                + "  shop/quote-full port http (80 -> http/TCP): 2 expected, 2 ready, 0 missing\n"
                + "  shop/quote-full port grpc (9000 -> grpc/TCP): 2 expected, 0 ready, 2"
                + " missing\n"
                + "    quote-a-0 NamedPortNotFound: port grpc (9000 -> grpc/TCP): no container"
                + " port named grpc; the pod declares http (closest: http)\n"
                + "    quote-a-1 NamedPortNotFound: port grpc (9000 -> grpc/TCP): no container"
                + " port named grpc; the pod declares http (closest: http)\n");
  }

  @Test
  void allowEmptyAcceptsAServiceThatSelectsNoPod() {
    createQuote();

    GateCli.Result strict = GateCli.run(gate("--service", "quote", "--timeout", "500ms"));
    GateCli.Result lenient =
        GateCli.run(gate("--service", "quote", "--allow-empty", "--settle", "0"));

    assertThat(strict.exitCode()).isEqualTo(1);
    assertThat(strict.out())
        .startsWith(
            "fail: timed out after 500ms: a Service has no expected pods (--allow-empty accepts"
                + " that)\n");
    assertThat(lenient.exitCode()).as(lenient.err()).isZero();
    assertThat(lenient.out()).contains("0 expected, 0 ready, 0 missing");
  }

  @Test
  void aNamedServiceThatDoesNotExistCannotBeEvaluated() {
    GateCli.Result result = GateCli.run(gate("--service", "quote"));

    assertThat(result.exitCode()).as(result.err()).isEqualTo(3);
    assertThat(result.out())
        .isEqualTo("cannot evaluate: Service quote not found in namespace shop\n");
  }
}
