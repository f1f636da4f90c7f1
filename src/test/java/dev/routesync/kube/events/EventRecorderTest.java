package dev.routesync.kube.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import dev.routesync.sync.FakeScheduler;
import dev.routesync.testing.LogCapture;
import dev.routesync.testing.MockCluster;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.events.v1.Event;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The recorder against fabric8's CRUD mock API server: what it writes, how it deduplicates and
 * folds repeats into the series, what it drops under a storm, and how it survives a deleted Event,
 * a restart, a forbidding and an unreachable API server. Time is a {@link FakeScheduler}; API calls
 * run on a {@link ManualWorker} when the test says so (or the real worker thread, awaited).
 */
class EventRecorderTest {

  private static final String NS = "shop";
  private static final String NODE = "node-a";
  private static final Instant START = Instant.parse("2026-12-01T12:00:00.123456789Z");
  private static final Duration AWAIT = Duration.ofSeconds(20);
  private static final String DNS_SUBDOMAIN =
      "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";

  private MockCluster cluster;
  private final FakeScheduler scheduler = new FakeScheduler(1_000_000_000L);
  private final SchedulerClock clock = new SchedulerClock(scheduler, START);
  private final CountingObserver observer = new CountingObserver();

  @BeforeEach
  void startCluster() {
    cluster = new MockCluster();
  }

  @AfterEach
  void stopCluster() throws Exception {
    cluster.close();
  }

  // ---- what one Event says -----------------------------------------------------------------

  @Test
  void oneWarnWritesOneEventWithEveryFieldOnTheWorkerThread() {
    EventSubject subject = drift("quote-7d4b9-abcde", "quote", "http");
    try (EventRecorder recorder =
        EventRecorder.start(
            cluster.client(),
            Reporter.onNode(Reporter.DRIFT_DETECTOR, NODE),
            EventRecorderSettings.defaults(),
            scheduler,
            clock,
            observer)) {
      recorder.warn(subject);
      await().atMost(AWAIT).until(() -> observer.count(EventResult.CREATED) == 1);
    }

    Event event = events().get(0);
    assertThat(events()).hasSize(1);
    assertThat(event.getApiVersion()).isEqualTo("events.k8s.io/v1");
    assertThat(event.getMetadata().getNamespace()).isEqualTo(NS);
    assertThat(event.getMetadata().getName())
        .startsWith("quote-7d4b9-abcde.")
        .hasSize("quote-7d4b9-abcde.".length() + 16)
        .matches(DNS_SUBDOMAIN);
    assertThat(event.getType()).isEqualTo("Warning");
    assertThat(event.getReason()).isEqualTo("PodNotInServiceEndpoints");
    assertThat(event.getAction()).isEqualTo("Routing");
    assertThat(event.getNote()).isEqualTo(subject.note());
    assertThat(event.getReportingController()).isEqualTo("routesync.dev/drift-detector");
    assertThat(event.getReportingInstance()).isEqualTo("routesync-node-a");
    assertThat(event.getEventTime().getTime()).isEqualTo("2026-12-01T12:00:00.123456Z");
    assertThat(event.getSeries()).isNull();
    assertReference(event.getRegarding(), "Pod", "quote-7d4b9-abcde", "uid-quote-7d4b9-abcde");
    assertReference(event.getRelated(), "Service", "quote", "uid-quote");
    assertThat(observer.total()).isEqualTo(1);
  }

  @Test
  void aLongNoteIsCutToTheApisLimit() {
    EventSubject subject =
        new EventSubject(
            "k",
            EventSubject.coreReference("Pod", NS, "p", "u"),
            null,
            "PodNotInServiceEndpoints",
            "Routing",
            "é".repeat(2000));
    ManualWorker worker = new ManualWorker(16);
    try (EventRecorder recorder = recorder(EventRecorderSettings.defaults(), worker)) {
      recorder.warn(subject);
      worker.runAll();
    }
    String note = events().get(0).getNote();
    assertThat(note.getBytes(java.nio.charset.StandardCharsets.UTF_8).length)
        .isLessThanOrEqualTo(1024);
    assertThat(note).endsWith("...").startsWith("éé");
    assertThat(events().get(0).getRelated()).isNull();
  }

  // ---- dedup and series --------------------------------------------------------------------

  @Test
  void repeatsWithinTheIntervalFoldIntoOneSeriesPatchAfterIt() {
    ManualWorker worker = new ManualWorker(16);
    EventSubject subject = drift("quote-1", "quote", "http");
    try (EventRecorder recorder = recorder(EventRecorderSettings.defaults(), worker)) {
      recorder.warn(subject);
      assertThat(worker.runAll()).isEqualTo(1);
      for (int minute = 1; minute <= 4; minute++) {
        scheduler.advance(Duration.ofMinutes(1));
        recorder.warn(subject);
      }
      // Four repeats within 5 minutes: counted locally, nothing written.
      assertThat(worker.pending()).isZero();
      assertThat(events()).singleElement().satisfies(e -> assertThat(e.getSeries()).isNull());

      // 5 minutes after the create, the sweep patches the series with every observation.
      scheduler.advance(Duration.ofMinutes(1));
      assertThat(worker.pending()).isEqualTo(1);
      worker.runAll();
      assertThat(events())
          .singleElement()
          .satisfies(
              e -> {
                assertThat(e.getSeries().getCount()).isEqualTo(5);
                assertThat(e.getSeries().getLastObservedTime().getTime())
                    .isEqualTo("2026-12-01T12:04:00.123456Z");
                assertThat(e.getEventTime().getTime()).isEqualTo("2026-12-01T12:00:00.123456Z");
              });

      // Nothing new observed: no more writes.
      scheduler.advance(Duration.ofMinutes(30));
      assertThat(worker.pending()).isZero();
    }
    assertThat(observer.count(EventResult.CREATED)).isEqualTo(1);
    assertThat(observer.count(EventResult.UPDATED)).isEqualTo(1);
    assertThat(observer.total()).isEqualTo(2);
  }

  @Test
  void aRepeatAfterTheIntervalPatchesAtOnce() {
    ManualWorker worker = new ManualWorker(16);
    EventSubject subject = drift("quote-1", "quote", "http");
    try (EventRecorder recorder = recorder(EventRecorderSettings.defaults(), worker)) {
      recorder.warn(subject);
      worker.runAll();
      scheduler.advance(Duration.ofMinutes(6));
      assertThat(worker.pending()).isZero();
      recorder.warn(subject);
      assertThat(worker.pending()).isEqualTo(1);
      worker.runAll();
    }
    assertThat(events())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.getSeries().getCount()).isEqualTo(2);
              assertThat(e.getSeries().getLastObservedTime().getTime())
                  .isEqualTo("2026-12-01T12:06:00.123456Z");
            });
  }

  @Test
  void differentKeysAreDifferentEvents() {
    ManualWorker worker = new ManualWorker(16);
    try (EventRecorder recorder = recorder(EventRecorderSettings.defaults(), worker)) {
      recorder.warn(drift("quote-1", "quote", "http"));
      recorder.warn(drift("quote-1", "quote", "grpc"));
      recorder.warn(drift("quote-1", "quote-canary", "http"));
      recorder.warn(drift("quote-2", "quote", "http"));
      recorder.warn(drift("quote-1", "quote", "http"));
      worker.runAll();
    }
    List<Event> events = events();
    assertThat(events).hasSize(4);
    assertThat(events).extracting(e -> e.getMetadata().getName()).doesNotHaveDuplicates();
    assertThat(events)
        .extracting(e -> e.getRegarding().getName())
        .containsExactlyInAnyOrder("quote-1", "quote-1", "quote-1", "quote-2");
    assertThat(observer.count(EventResult.CREATED)).isEqualTo(4);
  }

  // ---- the storm ---------------------------------------------------------------------------

  @Test
  void aThousandPodStormIsRateLimitedBoundedAndNeverRunsOnTheCaller() {
    EventRecorderSettings settings = EventRecorderSettings.defaults();
    ManualWorker worker = new ManualWorker(100_000);
    int pods = 1000;
    int rounds = 5;
    try (EventRecorder recorder = recorder(settings, worker)) {
      for (int round = 0; round < rounds; round++) {
        if (round > 0) {
          scheduler.advance(Duration.ofMinutes(1));
        }
        for (int pod = 0; pod < pods; pod++) {
          recorder.warn(drift("web-" + pod, "web", "http"));
          assertThat(recorder.trackedKeys()).isLessThanOrEqualTo(settings.maxKeys());
        }
      }
      // 5,000 calls, 4 minutes: the bucket allows 25 + 4 * 6 = 49 writes, all of them creates
      // (no key's 5-minute interval has passed). They are queued, none done on the caller.
      int allowance = 25 + 4 * 6;
      assertThat(worker.pending()).isEqualTo(allowance);
      assertThat(events()).isEmpty();
      assertThat(recorder.trackedKeys()).isEqualTo(allowance);
      // Observations of remembered keys: the first 25 pods 5 times, then 6 new pods a minute.
      int remembered = 25 * 5 + 6 * (4 + 3 + 2 + 1);
      assertThat(observer.count(EventResult.DROPPED_RATE_LIMIT))
          .isEqualTo(pods * rounds - remembered);

      worker.runAll();
      assertThat(events()).hasSize(allowance);

      // Fifteen more minutes, the worker draining as it goes: the series patches share the same
      // bucket, so total writes stay within its allowance, and every Event ends up counting
      // every observation of its pod.
      for (int step = 0; step < 15 * 6; step++) {
        scheduler.advance(Duration.ofSeconds(10));
        worker.runAll();
      }
      long elapsedTenSeconds = (4 * 60 + 15 * 60) / 10;
      assertThat(observer.count(EventResult.CREATED) + observer.count(EventResult.UPDATED))
          .isLessThanOrEqualTo((int) (25 + elapsedTenSeconds));
    }
    assertThat(observer.count(EventResult.CREATED)).isEqualTo(49);
    assertThat(observer.count(EventResult.FAILED)).isZero();
    assertThat(observer.count(EventResult.DROPPED_QUEUE_FULL)).isZero();
    Map<Integer, Long> eventsByCount =
        events().stream()
            .collect(
                Collectors.groupingBy(
                    e -> e.getSeries() == null ? 1 : e.getSeries().getCount(),
                    TreeMap::new,
                    Collectors.counting()));
    assertThat(eventsByCount)
        .containsExactly(
            Map.entry(1, 6L),
            Map.entry(2, 6L),
            Map.entry(3, 6L),
            Map.entry(4, 6L),
            Map.entry(5, 25L));
  }

  @Test
  void theKeyMapNeverExceedsItsMaximumAndForgetsOldKeys() {
    EventRecorderSettings settings =
        EventRecorderSettings.defaults().withBurst(100_000).withMaxKeys(100);
    ManualWorker worker = new ManualWorker(100_000);
    try (EventRecorder recorder = recorder(settings, worker)) {
      for (int pod = 0; pod < 300; pod++) {
        recorder.warn(drift("web-" + pod, "web", "http"));
        assertThat(recorder.trackedKeys()).isLessThanOrEqualTo(100);
      }
      assertThat(recorder.trackedKeys()).isEqualTo(100);
      worker.runAll();
      scheduler.advance(Duration.ofMinutes(61));
      assertThat(recorder.trackedKeys()).isZero();
    }
  }

  @Test
  void aFullQueueDropsAndCountsWithoutBlockingTheCaller() throws Exception {
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    SingleThreadWorker worker = new SingleThreadWorker(4);
    try (EventRecorder recorder = recorder(EventRecorderSettings.defaults(), worker)) {
      // Occupy the worker thread, as a hung API call would.
      assertThat(
              worker.offer(
                  () -> {
                    started.countDown();
                    try {
                      release.await(30, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                      Thread.currentThread().interrupt();
                    }
                  }))
          .isTrue();
      assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();

      for (int pod = 0; pod < 10; pod++) {
        recorder.warn(drift("web-" + pod, "web", "http"));
      }
      assertThat(observer.count(EventResult.DROPPED_QUEUE_FULL)).isEqualTo(6);
      // The dropped keys are not remembered: their next observation is a new Event again.
      assertThat(recorder.trackedKeys()).isEqualTo(4);

      release.countDown();
      await().atMost(AWAIT).until(() -> observer.count(EventResult.CREATED) == 4);
    }
    assertThat(events()).hasSize(4);
  }

  // ---- failures ----------------------------------------------------------------------------

  @Test
  void anEventDeletedBehindTheRecordersBackIsCreatedAgainAtTheNextUpdate() {
    ManualWorker worker = new ManualWorker(16);
    EventSubject subject = drift("quote-1", "quote", "http");
    try (EventRecorder recorder = recorder(EventRecorderSettings.defaults(), worker)) {
      recorder.warn(subject);
      worker.runAll();
      cluster.client().resource(events().get(0)).delete();
      assertThat(events()).isEmpty();

      scheduler.advance(Duration.ofMinutes(6));
      recorder.warn(subject);
      worker.runAll();
    }
    assertThat(events())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.getSeries().getCount()).isEqualTo(2);
              assertThat(e.getEventTime().getTime()).isEqualTo("2026-12-01T12:00:00.123456Z");
            });
    assertThat(observer.count(EventResult.CREATED)).isEqualTo(2);
    assertThat(observer.count(EventResult.FAILED)).isZero();
  }

  @Test
  void aRestartedAgentFindsItsEventAndAddsToItsSeries() {
    EventSubject subject = drift("quote-1", "quote", "http");
    ManualWorker first = new ManualWorker(16);
    try (EventRecorder before = recorder(EventRecorderSettings.defaults(), first)) {
      before.warn(subject);
      first.runAll();
      before.warn(subject);
      before.warn(subject);
      scheduler.advance(Duration.ofMinutes(5));
      first.runAll();
    }
    assertThat(events()).singleElement().satisfies(e -> assertSeriesCount(e, 3));

    // A new agent knows nothing, names the Event the same, and gets a 409 for its create: it
    // reads the Event back through an empty patch and adds its count to the earlier agent's.
    ManualWorker second = new ManualWorker(16);
    CountingObserver afterRestart = new CountingObserver();
    try (EventRecorder after =
        new EventRecorder(
            cluster.client(),
            Reporter.onNode(Reporter.DRIFT_DETECTOR, NODE),
            EventRecorderSettings.defaults(),
            scheduler,
            clock,
            afterRestart,
            second)) {
      scheduler.advance(Duration.ofMinutes(1));
      after.warn(subject);
      second.runAll();
      assertThat(afterRestart.count(EventResult.UPDATED)).isEqualTo(1);
      assertThat(events()).singleElement().satisfies(e -> assertSeriesCount(e, 4));

      scheduler.advance(Duration.ofMinutes(6));
      after.warn(subject);
      second.runAll();
    }
    assertThat(events()).singleElement().satisfies(e -> assertSeriesCount(e, 5));
    assertThat(afterRestart.count(EventResult.FAILED)).isZero();
  }

  @Test
  void aRestartedAgentCountsASingletonEventAsOneObservation() {
    EventSubject subject = drift("quote-1", "quote", "http");
    ManualWorker first = new ManualWorker(16);
    try (EventRecorder before = recorder(EventRecorderSettings.defaults(), first)) {
      before.warn(subject);
      first.runAll();
    }
    ManualWorker second = new ManualWorker(16);
    try (EventRecorder after = recorder(EventRecorderSettings.defaults(), second)) {
      after.warn(subject);
      second.runAll();
    }
    assertThat(events()).singleElement().satisfies(e -> assertSeriesCount(e, 2));
  }

  @Test
  void aForbiddingApiServerIsCountedAsFailedAndLoggedOnceAMinute() {
    KubernetesMockServer server = new KubernetesMockServer(false);
    server.init(InetAddress.getLoopbackAddress(), 0);
    server
        .expect()
        .post()
        .withPath("/apis/events.k8s.io/v1/namespaces/" + NS + "/events")
        .andReturn(
            403,
            new StatusBuilder()
                .withCode(403)
                .withReason("Forbidden")
                .withMessage("events.events.k8s.io is forbidden")
                .build())
        .always();
    ManualWorker worker = new ManualWorker(16);
    try (KubernetesClient client = server.createClient();
        LogCapture log = new LogCapture(EventRecorder.class.getName(), Level.WARN);
        EventRecorder recorder =
            new EventRecorder(
                client,
                Reporter.onNode(Reporter.DRIFT_DETECTOR, NODE),
                EventRecorderSettings.defaults(),
                scheduler,
                clock,
                observer,
                worker)) {
      recorder.warn(drift("quote-1", "quote", "http"));
      recorder.warn(drift("quote-2", "quote", "http"));
      worker.runAll();
      assertThat(observer.count(EventResult.FAILED)).isEqualTo(2);
      assertThat(log.atLeast(Level.WARN)).hasSize(1);
      assertThat(log.lines().get(0)).contains("shop/quote-1.", "forbidden", "create and patch");

      scheduler.advance(Duration.ofSeconds(61));
      recorder.warn(drift("quote-3", "quote", "http"));
      worker.runAll();
      assertThat(observer.count(EventResult.FAILED)).isEqualTo(3);
      assertThat(log.lines()).hasSize(2);
      assertThat(log.lines().get(1)).contains("1 more since the last message");
    } finally {
      server.destroy();
    }
  }

  @Test
  void anUnreachableApiServerIsCountedAsFailed() throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closedPort = socket.getLocalPort();
    }
    ManualWorker worker = new ManualWorker(16);
    try (KubernetesClient client =
            new KubernetesClientBuilder()
                .withConfig(
                    new ConfigBuilder()
                        .withMasterUrl("http://127.0.0.1:" + closedPort)
                        .withRequestRetryBackoffLimit(0)
                        .withConnectionTimeout(2_000)
                        .withRequestTimeout(5_000)
                        .build())
                .build();
        EventRecorder recorder =
            new EventRecorder(
                client,
                Reporter.onNode(Reporter.DRIFT_DETECTOR, NODE),
                EventRecorderSettings.defaults(),
                scheduler,
                clock,
                observer,
                worker)) {
      recorder.warn(drift("quote-1", "quote", "http"));
      worker.runAll();
    }
    assertThat(observer.count(EventResult.FAILED)).isEqualTo(1);
    assertThat(observer.total()).isEqualTo(1);
  }

  @Test
  void afterCloseWarnIsIgnored() {
    ManualWorker worker = new ManualWorker(16);
    EventRecorder recorder = recorder(EventRecorderSettings.defaults(), worker);
    recorder.close();
    recorder.warn(drift("quote-1", "quote", "http"));
    recorder.close();
    assertThat(worker.pending()).isZero();
    assertThat(observer.total()).isZero();
    assertThat(scheduler.pendingCount()).isZero();
  }

  // ---- helpers -----------------------------------------------------------------------------

  private EventRecorder recorder(EventRecorderSettings settings, Worker worker) {
    return new EventRecorder(
        cluster.client(),
        Reporter.onNode(Reporter.DRIFT_DETECTOR, NODE),
        settings,
        scheduler,
        clock,
        observer,
        worker);
  }

  private List<Event> events() {
    return cluster.client().events().v1().events().inNamespace(NS).list().getItems();
  }

  private static EventSubject drift(String pod, String service, String port) {
    return new EventSubject(
        String.join("/", NS, pod, service, port, "NamedPortNotFound"),
        EventSubject.coreReference("Pod", NS, pod, "uid-" + pod),
        EventSubject.coreReference("Service", NS, service, "uid-" + service),
        "PodNotInServiceEndpoints",
        "Routing",
        "Service "
            + NS
            + "/"
            + service
            + " port "
            + port
            + ": NamedPortNotFound; the pod declares http-api (closest: http-api)");
  }

  private static void assertSeriesCount(Event event, int count) {
    assertThat(event.getSeries()).as("series of %s", event.getMetadata().getName()).isNotNull();
    assertThat(event.getSeries().getCount()).isEqualTo(count);
  }

  private static void assertReference(ObjectReference ref, String kind, String name, String uid) {
    assertThat(ref.getApiVersion()).isEqualTo("v1");
    assertThat(ref.getKind()).isEqualTo(kind);
    assertThat(ref.getNamespace()).isEqualTo(NS);
    assertThat(ref.getName()).isEqualTo(name);
    assertThat(ref.getUid()).isEqualTo(uid);
  }
}
