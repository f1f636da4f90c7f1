package dev.routesync.kube.events;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.sync.FakeScheduler;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.events.v1.EventBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.net.InetAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The agent's ClusterRole grants {@code create} and {@code patch} on events.k8s.io Events and no
 * {@code get} (daemonset/base/rbac.yaml). A real API server refuses a GET with it, which the CRUD
 * mock never does: here every GET of an Event is 403, as RBAC answers it, and the recorder's two
 * patches (a series update, and the adoption of an Event a previous agent wrote) must still work.
 * fabric8's {@code withName(n).patch(...)} GETs the object first; found by RbacAsShippedIT.
 */
class EventWritesWithoutGetTest {

  private static final String NS = "shop";
  private static final String PATH = "/apis/events.k8s.io/v1/namespaces/" + NS + "/events";
  private static final Instant START = Instant.parse("2026-12-01T12:00:00Z");

  private final FakeScheduler scheduler = new FakeScheduler(1_000_000_000L);
  private final SchedulerClock clock = new SchedulerClock(scheduler, START);
  private final CountingObserver observer = new CountingObserver();
  private final EventSubject subject =
      new EventSubject(
          "shop/quote-1/quote/http/NamedPortNotFound",
          EventSubject.coreReference("Pod", NS, "quote-1", "uid-quote-1"),
          EventSubject.coreReference("Service", NS, "quote", "uid-quote"),
          "PodNotInServiceEndpoints",
          "Routing",
          "NamedPortNotFound");
  private final String eventPath = PATH + "/" + EventFields.name("quote-1", subject.dedupKey());
  private KubernetesMockServer server;

  @BeforeEach
  void startServer() {
    server = new KubernetesMockServer(false);
    server.init(InetAddress.getLoopbackAddress(), 0);
    server
        .expect()
        .get()
        .withPath(eventPath)
        .andReturn(
            403,
            new StatusBuilder()
                .withCode(403)
                .withReason("Forbidden")
                .withMessage("cannot get resource \"events\" in API group \"events.k8s.io\"")
                .build())
        .always();
    server.expect().patch().withPath(eventPath).andReturn(200, event()).always();
  }

  @AfterEach
  void stopServer() {
    server.destroy();
  }

  @Test
  void aRestartedAgentAdoptsItsEventWithPatchesOnly() throws Exception {
    server.expect().post().withPath(PATH).andReturn(409, conflict()).always();
    ManualWorker worker = new ManualWorker(16);
    try (KubernetesClient client = server.createClient();
        EventRecorder recorder = recorder(client, worker)) {
      recorder.warn(subject);
      worker.runAll();
    }
    assertThat(observer.count(EventResult.FAILED)).as("failed writes").isZero();
    assertThat(observer.count(EventResult.UPDATED)).isEqualTo(1);
    assertThat(methods()).containsExactly("POST", "PATCH", "PATCH");
  }

  @Test
  void aRepeatAfterTheIntervalPatchesTheSeriesWithoutAGet() throws Exception {
    server.expect().post().withPath(PATH).andReturn(201, event()).always();
    ManualWorker worker = new ManualWorker(16);
    try (KubernetesClient client = server.createClient();
        EventRecorder recorder = recorder(client, worker)) {
      recorder.warn(subject);
      worker.runAll();
      scheduler.advance(Duration.ofMinutes(6));
      recorder.warn(subject);
      worker.runAll();
    }
    assertThat(observer.count(EventResult.FAILED)).as("failed writes").isZero();
    assertThat(observer.count(EventResult.UPDATED)).isEqualTo(1);
    assertThat(methods()).containsExactly("POST", "PATCH");
  }

  private EventRecorder recorder(KubernetesClient client, ManualWorker worker) {
    return new EventRecorder(
        client,
        Reporter.onNode(Reporter.DRIFT_DETECTOR, "node-a"),
        EventRecorderSettings.defaults(),
        scheduler,
        clock,
        observer,
        worker);
  }

  private List<String> methods() throws InterruptedException {
    List<String> methods = new ArrayList<>();
    RecordedRequest request;
    while ((request = server.takeRequest(0, java.util.concurrent.TimeUnit.SECONDS)) != null) {
      methods.add(request.getMethod());
    }
    return methods;
  }

  private io.fabric8.kubernetes.api.model.events.v1.Event event() {
    return new EventBuilder()
        .withNewMetadata()
        .withNamespace(NS)
        .withName(eventPath.substring(eventPath.lastIndexOf('/') + 1))
        .endMetadata()
        .withReason("PodNotInServiceEndpoints")
        .build();
  }

  private static io.fabric8.kubernetes.api.model.Status conflict() {
    return new StatusBuilder().withCode(409).withReason("AlreadyExists").build();
  }
}
