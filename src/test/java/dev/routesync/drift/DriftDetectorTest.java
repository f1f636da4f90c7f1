package dev.routesync.drift;

import static dev.routesync.drift.DriftFixtures.NODE;
import static dev.routesync.drift.DriftFixtures.pod;
import static dev.routesync.drift.DriftFixtures.quote;
import static dev.routesync.drift.DriftFixtures.slice;
import static dev.routesync.drift.DriftFixtures.withReady;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import dev.routesync.drift.DriftObserver.PortSeries;
import dev.routesync.kube.watch.WatchEvent;
import dev.routesync.rules.MissingReason;
import dev.routesync.rules.PortSearch;
import dev.routesync.sync.FakeScheduler;
import dev.routesync.testing.LogCapture;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The detector alone: fake inputs, a fake clock, a fake observer and Event recorder. */
class DriftDetectorTest {

  private static final Duration DEBOUNCE = Duration.ofMillis(50);
  private static final Duration GRACE = Duration.ofSeconds(30);
  private static final Instant T0 = Instant.parse("2026-09-17T14:10:00Z");

  private final FakeScheduler scheduler = new FakeScheduler();
  private final Gauges gauges = new Gauges();
  private final List<DriftEntry> events = new ArrayList<>();
  private DriftDetector detector;
  private LogCapture log;

  @BeforeEach
  void setUp() {
    log = new LogCapture(DriftDetector.class.getName(), Level.INFO);
    // Wall time follows the fake clock, so "since" can be checked exactly.
    Clock wall =
        new Clock() {
          @Override
          public Instant instant() {
            return T0.plusNanos(scheduler.nanoTime());
          }

          @Override
          public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
          }

          @Override
          public Clock withZone(java.time.ZoneId zone) {
            return this;
          }
        };
    detector =
        new DriftDetector(
            NODE,
            GRACE,
            DEBOUNCE,
            scheduler,
            wall,
            PortSearch.CONTAINERS_AND_SIDECARS,
            gauges,
            (entry, pod, service) -> events.add(entry));
  }

  @AfterEach
  void tearDown() {
    log.close();
  }

  // ---- the incident: certain reasons -----------------------------------------------------------

  @Test
  void aReadyPodWithoutTheNamedPortIsReportedWithinOneDebounce() {
    syncAll(List.of(), List.of(quote("http", "1")), List.of());
    scheduler.advance(Duration.ofSeconds(1));
    Pod renamed = pod("quote-new-1", "uid-1", NODE, "http-api", true);

    add(detector.pods(), renamed);
    add(detector.slices(), slice("quote", "quote-x", null, List.of(renamed)));
    scheduler.advance(DEBOUNCE.minusNanos(1));
    assertThat(detector.current().drift()).isEmpty();
    scheduler.advance(Duration.ofNanos(1));

    assertThat(detector.current().state()).isEqualTo(DriftSnapshot.State.ON);
    assertThat(detector.current().drift())
        .singleElement()
        .satisfies(
            entry -> {
              assertThat(entry.pod()).isEqualTo("quote-new-1");
              assertThat(entry.service()).isEqualTo("quote");
              assertThat(entry.port()).isEqualTo("http");
              assertThat(entry.reason()).isEqualTo(MissingReason.NAMED_PORT_NOT_FOUND);
              assertThat(entry.message()).contains("no container port named http", "http-api");
              assertThat(entry.declaredNames()).containsExactly("http-api");
              assertThat(entry.since()).isEqualTo(T0.plusSeconds(1));
            });
    assertThat(gauges.drift("quote", "http", MissingReason.NAMED_PORT_NOT_FOUND)).isEqualTo(1);
    assertThat(gauges.ready("quote", "http")).isZero();
    assertThat(events).hasSize(1);
    assertThat(warnings())
        .singleElement()
        .asString()
        .contains("shop/quote-new-1", "shop/quote", "port http", "NamedPortNotFound");
  }

  @Test
  void aProtocolMismatchIsCertainToo() {
    Service udp =
        new io.fabric8.kubernetes.api.model.ServiceBuilder(quote("http", "1"))
            .editSpec()
            .editFirstPort()
            .withProtocol("UDP")
            .endPort()
            .endSpec()
            .build();
    Pod pod = pod("quote-1", "uid-1", NODE, "http", true);
    syncAll(List.of(pod), List.of(udp), List.of(slice("quote", "s", null, List.of(pod))));
    scheduler.advance(DEBOUNCE);

    assertThat(detector.current().drift())
        .singleElement()
        .extracting(DriftEntry::reason)
        .isEqualTo(MissingReason.PROTOCOL_MISMATCH);
  }

  @Test
  void eightNewPodsOfTheRolloutAreEightDriftsOneWarnAndOneEventEach() {
    syncAll(List.of(), List.of(quote("http", "1")), List.of());
    List<Pod> renamed = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      renamed.add(pod("quote-new-" + i, "uid-" + i, NODE, "http-api", true));
      add(detector.pods(), renamed.get(i));
      // The controller rewrites its slice at every new pod: one re-evaluation each.
      add(detector.slices(), slice("quote", "quote-x", null, renamed));
      scheduler.advance(DEBOUNCE);
    }
    for (int i = 0; i < 5; i++) { // more re-evaluations, no new drift
      add(detector.slices(), slice("quote", "quote-x", null, renamed));
      scheduler.advance(DEBOUNCE);
    }

    assertThat(detector.current().drift()).hasSize(8);
    assertThat(gauges.drift("quote", "http", MissingReason.NAMED_PORT_NOT_FOUND)).isEqualTo(8);
    assertThat(events).hasSize(8);
    assertThat(warnings()).hasSize(8);
  }

  @Test
  void aNormalRolloutReportsNothing() {
    Pod old = pod("quote-old", "uid-old", NODE, "http", true);
    syncAll(
        List.of(old),
        List.of(quote("http", "1")),
        List.of(slice("quote", "s", "http", List.of(old))));
    Pod next = pod("quote-new", "uid-new", NODE, "http", true);
    add(detector.pods(), next);
    scheduler.advance(Duration.ofSeconds(2)); // the controller takes 2 s, well within the grace
    add(detector.slices(), slice("quote", "s", "http", List.of(old, next)));
    delete(detector.pods(), old);
    add(detector.slices(), slice("quote", "s", "http", List.of(next)));
    scheduler.advance(GRACE.multipliedBy(3));

    assertThat(detector.current().drift()).isEmpty();
    assertThat(gauges.series()).containsOnlyKeys("ready shop/quote/http");
    assertThat(gauges.ready("quote", "http")).isEqualTo(1);
    assertThat(events).isEmpty();
    assertThat(warnings()).isEmpty();
  }

  @Test
  void aDualStackServicesPodsAreFoundInEitherFamilysSliceAndCountedOnce() {
    // Each pod has status.podIPs of both families; the controller lists it in an IPv4 and an IPv6
    // slice (the same uid as targetRef in both).
    Pod first = dualStack(pod("quote-1", "uid-1", NODE, "http", true), "fd00::1");
    Pod second = dualStack(pod("quote-2", "uid-2", NODE, "http", true), "fd00::2");
    EndpointSlice ipv4 = slice("quote", "quote-ipv4", "http", List.of(first, second));
    EndpointSlice ipv6 = ipv6Copy(slice("quote", "quote-ipv6", "http", List.of(first, second)));
    syncAll(List.of(first, second), List.of(quote("http", "1")), List.of(ipv4, ipv6));
    scheduler.advance(GRACE.multipliedBy(2));

    assertThat(detector.current().drift()).isEmpty();
    assertThat(gauges.ready("quote", "http")).isEqualTo(2);

    // The second pod is deleted; the controller rewrites the IPv6 slice first: counted once.
    delete(detector.pods(), second);
    add(detector.slices(), ipv6Copy(slice("quote", "quote-ipv6", "http", List.of(first))));
    scheduler.advance(DEBOUNCE.multipliedBy(2));
    assertThat(detector.current().drift()).isEmpty();
    assertThat(gauges.ready("quote", "http")).isEqualTo(2);
    add(detector.slices(), slice("quote", "quote-ipv4", "http", List.of(first)));
    scheduler.advance(DEBOUNCE.multipliedBy(2));
    assertThat(gauges.ready("quote", "http")).isEqualTo(1);
    assertThat(events).isEmpty();
  }

  private static Pod dualStack(Pod pod, String ipv6) {
    return new io.fabric8.kubernetes.api.model.PodBuilder(pod)
        .editStatus()
        .addNewPodIP()
        .withIp(pod.getStatus().getPodIP())
        .endPodIP()
        .addNewPodIP()
        .withIp(ipv6)
        .endPodIP()
        .endStatus()
        .build();
  }

  /** The IPv6 slice of the same pods: each endpoint's address is its pod's IPv6 one. */
  private static EndpointSlice ipv6Copy(EndpointSlice slice) {
    slice.setAddressType("IPv6");
    slice
        .getEndpoints()
        .forEach(e -> e.setAddresses(List.of("fd00::" + e.getTargetRef().getName().substring(6))));
    return slice;
  }

  @Test
  void nothingIsEvaluatedBeforeAllThreeWatchesHaveSynced() {
    Pod renamed = pod("quote-new-1", "uid-1", NODE, "http-api", true);
    detector.pods().sync(List.of(renamed));
    detector.services().sync(List.of(quote("http", "1")));
    scheduler.advance(Duration.ofSeconds(5));
    assertThat(detector.current().state()).isEqualTo(DriftSnapshot.State.STARTING);
    assertThat(detector.current().drift()).isEmpty();

    detector.slices().sync(List.of(slice("quote", "s", null, List.of(renamed))));
    scheduler.advance(DEBOUNCE);

    assertThat(detector.current().drift()).hasSize(1);
  }

  // ---- NotInEndpoints and its grace ------------------------------------------------------------

  /** A pod whose port resolves, absent from the slices: reported only after the grace. */
  @ParameterizedTest(name = "latest: {0}")
  @ValueSource(strings = {"sync", "ready", "service"})
  void notInEndpointsWaitsForTheGraceFromTheLatestOfReadySyncAndServiceChange(String latest) {
    Pod notReady = pod("quote-1", "uid-1", NODE, "http", false);
    syncAll(List.of(notReady), List.of(quote("http", "1")), List.of());
    Duration latestAt = Duration.ZERO;
    if (latest.equals("ready")) {
      scheduler.advance(Duration.ofSeconds(10));
      latestAt = Duration.ofSeconds(10);
    }
    add(detector.pods(), withReady(notReady, true));
    if (latest.equals("service")) {
      scheduler.advance(Duration.ofSeconds(20));
      latestAt = Duration.ofSeconds(20);
      add(detector.services(), quote("http", "2"));
    }
    if (latest.equals("sync")) {
      scheduler.advance(Duration.ofSeconds(15));
      latestAt = Duration.ofSeconds(15);
      detector.slices().sync(List.of()); // a relist of one of the three watches
    }

    scheduler.advanceTo(latestAt.plus(GRACE).toNanos() - 1);
    assertThat(detector.current().drift()).as("before the grace ends").isEmpty();
    scheduler.advance(Duration.ofNanos(1));
    scheduler.advance(DEBOUNCE); // at most one more evaluation round

    Instant expectedSince = T0.plus(latestAt);
    assertThat(detector.current().drift())
        .singleElement()
        .satisfies(
            entry -> {
              assertThat(entry.reason()).isEqualTo(MissingReason.NOT_IN_ENDPOINTS);
              assertThat(entry.since()).isEqualTo(expectedSince);
            });
    assertThat(gauges.drift("quote", "http", MissingReason.NOT_IN_ENDPOINTS)).isEqualTo(1);
    assertThat(warnings()).hasSize(1);
  }

  @Test
  void aPodThatBecomesAnEndpointWithinTheGraceIsNeverReported() {
    Pod pod = pod("quote-1", "uid-1", NODE, "http", true);
    syncAll(List.of(pod), List.of(quote("http", "1")), List.of());
    scheduler.advance(GRACE.minusSeconds(1));
    add(detector.slices(), slice("quote", "s", "http", List.of(pod)));
    scheduler.advance(GRACE.multipliedBy(2));

    assertThat(detector.current().drift()).isEmpty();
    assertThat(warnings()).isEmpty();
  }

  @Test
  void aReportedNotInEndpointsSurvivesARelist() {
    Pod pod = pod("quote-1", "uid-1", NODE, "http", true);
    syncAll(List.of(pod), List.of(quote("http", "1")), List.of());
    scheduler.advance(GRACE.plus(DEBOUNCE));
    assertThat(detector.current().drift()).hasSize(1);

    // A relist in which the pod changed (a label, say) re-evaluates it: the grace would restart
    // for a new drift, but this one is already reported.
    Pod changed =
        new io.fabric8.kubernetes.api.model.PodBuilder(pod)
            .editMetadata()
            .withResourceVersion("2")
            .addToAnnotations("seen", "again")
            .endMetadata()
            .build();
    detector.pods().sync(List.of(changed));
    scheduler.advance(DEBOUNCE);

    assertThat(detector.current().drift()).hasSize(1);
    assertThat(warnings()).hasSize(1);
  }

  @Test
  void aRelistOfUnchangedObjectsEvaluatesNothingAgain() {
    Pod pod = pod("quote-1", "uid-1", NODE, "http", true);
    Service service = quote("http", "1");
    EndpointSlice slice = slice("quote", "s", "http", List.of(pod));
    slice.getMetadata().setResourceVersion("1");
    syncAll(List.of(pod), List.of(service), List.of(slice));
    scheduler.advance(DEBOUNCE);
    long before = detector.stats().podEvaluations();

    syncAll(List.of(pod), List.of(service), List.of(slice)); // a resync: the same versions
    scheduler.advance(DEBOUNCE);

    assertThat(detector.stats().podEvaluations()).isEqualTo(before);
  }

  // ---- clearing --------------------------------------------------------------------------------

  @Test
  void clearsWhenThePodBecomesAnEndpointAndTheGaugeStaysAtZero() {
    Pod pod = incident();
    add(detector.slices(), slice("quote", "quote-x", "http", List.of(pod)));
    scheduler.advance(DEBOUNCE);

    assertThat(detector.current().drift()).isEmpty();
    assertThat(gauges.drift("quote", "http", MissingReason.NAMED_PORT_NOT_FOUND)).isZero();
    assertThat(gauges.ready("quote", "http")).isEqualTo(1);
  }

  @Test
  void clearsWhenThePodStopsBeingReady() {
    Pod pod = incident();
    add(detector.pods(), withReady(pod, false));
    scheduler.advance(DEBOUNCE);

    assertThat(detector.current().drift()).isEmpty();
    assertThat(gauges.drift("quote", "http", MissingReason.NAMED_PORT_NOT_FOUND)).isZero();
  }

  @Test
  void clearsWhenThePodIsDeletedAndTheSeriesGoWithTheServicesLastPodHere() {
    Pod pod = incident();
    delete(detector.pods(), pod);
    scheduler.advance(DEBOUNCE);

    assertThat(detector.current().drift()).isEmpty();
    assertThat(gauges.series()).isEmpty();
  }

  @Test
  void clearsWhenTheServiceIsFixedAndReportsWhatIsLeftOnlyAfterTheGrace() {
    incident();
    add(detector.services(), quote("http-api", "2")); // the Service follows the rename
    scheduler.advance(DEBOUNCE);

    assertThat(detector.current().drift()).isEmpty();
    assertThat(gauges.drift("quote", "http", MissingReason.NAMED_PORT_NOT_FOUND)).isZero();

    scheduler.advance(GRACE); // the controller never caught up: now it is NotInEndpoints
    assertThat(detector.current().drift())
        .singleElement()
        .extracting(DriftEntry::reason)
        .isEqualTo(MissingReason.NOT_IN_ENDPOINTS);
  }

  @Test
  void clearsWhenTheServiceLosesTheLabelOrIsDeleted() {
    incident();
    // Losing mesh-managed=true reaches a label-selected watch as a deletion.
    delete(detector.services(), quote("http", "1"));
    scheduler.advance(DEBOUNCE);

    assertThat(detector.current().drift()).isEmpty();
    assertThat(gauges.series()).isEmpty();
    assertThat(warnings()).hasSize(1);
  }

  @Test
  void clearsWhenTheServiceNoLongerSelectsThePod() {
    incident();
    add(
        detector.services(),
        DriftFixtures.service("quote", Map.of("app", "quote-v2"), "http", "2"));
    scheduler.advance(DEBOUNCE);

    assertThat(detector.current().drift()).isEmpty();
    assertThat(gauges.series()).isEmpty();
  }

  @Test
  void podsOfAnotherNodeNeverDriftHere() {
    Pod elsewhere = pod("quote-b", "uid-b", "node-b", "http-api", true);
    syncAll(
        List.of(elsewhere),
        List.of(quote("http", "1")),
        List.of(slice("quote", "s", null, List.of(elsewhere))));
    add(detector.pods(), elsewhere);
    scheduler.advance(GRACE.multipliedBy(2));

    assertThat(detector.current().drift()).isEmpty();
    assertThat(gauges.series()).isEmpty();
  }

  // ---- the ready-endpoints gauge ---------------------------------------------------------------

  @Test
  void theGaugeCountsEveryNodesReadyEndpointsThoughOnlyThisNodesUidsAreKept() {
    Pod here = pod("quote-1", "uid-1", NODE, "http", true);
    List<Pod> elsewhere =
        List.of(
            pod("quote-2", "uid-2", "node-b", "http", true),
            pod("quote-3", "uid-3", "node-c", "http", true),
            pod("quote-4", "uid-4", "node-c", "http", false));
    EndpointSlice first = slice("quote", "quote-x", "http", List.of(here, elsewhere.get(0)));
    EndpointSlice second = slice("quote", "quote-y", "http", elsewhere.subList(1, 3));
    second.getEndpoints().get(1).getConditions().setReady(false);

    syncAll(List.of(here), List.of(quote("http", "1")), List.of(first, second));
    scheduler.advance(DEBOUNCE);

    assertThat(gauges.ready("quote", "http")).isEqualTo(3);
    assertThat(detector.current().drift()).isEmpty();
  }

  @Test
  void aPodListedInTwoSlicesAtOnceCountsTwiceUntilTheControllerFinishesTheMove() {
    // The decision ReadyUids documents: a per-slice count, summed, rather than every endpoint's uid
    // kept to take the union. The controller's move is two writes; the second corrects the gauge.
    Pod here = pod("quote-1", "uid-1", NODE, "http", true);
    Pod moved = pod("quote-2", "uid-2", "node-b", "http", true);
    syncAll(
        List.of(here),
        List.of(quote("http", "1")),
        List.of(slice("quote", "quote-x", "http", List.of(here, moved))));
    scheduler.advance(DEBOUNCE);
    assertThat(gauges.ready("quote", "http")).isEqualTo(2);

    add(detector.slices(), slice("quote", "quote-y", "http", List.of(moved)));
    scheduler.advance(DEBOUNCE);
    assertThat(gauges.ready("quote", "http")).isEqualTo(3);

    add(detector.slices(), slice("quote", "quote-x", "http", List.of(here)));
    scheduler.advance(DEBOUNCE);
    assertThat(gauges.ready("quote", "http")).isEqualTo(2);
    assertThat(detector.current().drift()).isEmpty();
  }

  // ---- cost
  // --------------------------------------------------------------------------------------

  @Test
  void aPodEventChecksOnlyTheServicesSharingALabelWithIt() {
    List<Service> services = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      services.add(
          DriftFixtures.service("svc-" + i, Map.of("app", "app-" + i, "tier", "web"), "http", "1"));
    }
    services.add(quote("http", "1"));
    syncAll(List.of(), services, List.of());
    scheduler.advance(DEBOUNCE);
    long before = detector.stats().selectorChecks();

    add(detector.pods(), pod("quote-1", "uid-1", NODE, "http-api", true));
    scheduler.advance(DEBOUNCE);

    // The pod carries app=quote and pod-template-hash=abc: only quote is filed under either.
    assertThat(detector.stats().selectorChecks() - before).isEqualTo(1);
    assertThat(detector.current().drift()).hasSize(1);
    // Series only for the Service with a pod here, not for the thousand others.
    assertThat(gauges.series())
        .containsOnlyKeys("drift shop/quote/http NamedPortNotFound", "ready shop/quote/http");
  }

  @Test
  void aSliceChangeReevaluatesOnlyThisNodesPodsOfThatService() {
    Pod a = pod("quote-1", "uid-1", NODE, "http", true);
    Service other = DriftFixtures.service("other", Map.of("app", "other"), "http", "1");
    syncAll(List.of(a), List.of(quote("http", "1"), other), List.of());
    scheduler.advance(DEBOUNCE);
    long before = detector.stats().podEvaluations();

    add(detector.slices(), slice("other", "other-x", "http", List.of()));
    scheduler.advance(DEBOUNCE);
    assertThat(detector.stats().podEvaluations() - before).as("no pod of other here").isZero();

    add(detector.slices(), slice("quote", "quote-x", "http", List.of(a)));
    scheduler.advance(DEBOUNCE);
    assertThat(detector.stats().podEvaluations() - before).isEqualTo(1);
  }

  // ---- helpers ---------------------------------------------------------------------------------

  /** The seed's incident on this node: a Ready pod declaring http-api, in a ports: null slice. */
  private Pod incident() {
    Pod pod = pod("quote-new-1", "uid-1", NODE, "http-api", true);
    syncAll(
        List.of(pod),
        List.of(quote("http", "1")),
        List.of(slice("quote", "quote-x", null, List.of(pod))));
    scheduler.advance(DEBOUNCE);
    assertThat(detector.current().drift()).hasSize(1);
    assertThat(gauges.drift("quote", "http", MissingReason.NAMED_PORT_NOT_FOUND)).isEqualTo(1);
    return pod;
  }

  private void syncAll(List<Pod> pods, List<Service> services, List<EndpointSlice> slices) {
    detector.pods().sync(pods);
    detector.services().sync(services);
    detector.slices().sync(slices);
  }

  private <T extends HasMetadata> void add(DriftDetector.DriftInput<T> input, T object) {
    input.event(new WatchEvent<>(WatchEvent.Type.UPDATED, null, object, scheduler.nanoTime()));
  }

  private <T extends HasMetadata> void delete(DriftDetector.DriftInput<T> input, T object) {
    input.event(new WatchEvent<>(WatchEvent.Type.DELETED, null, object, scheduler.nanoTime()));
  }

  private List<String> warnings() {
    return log.lines().stream().filter(line -> line.startsWith("WARN")).toList();
  }

  /** The gauges as a Prometheus scrape would show them: series that exist, with their values. */
  private static final class Gauges implements DriftObserver {
    private final Map<String, Integer> series = new TreeMap<>();

    @Override
    public void driftPods(PortSeries s, MissingReason reason, int pods) {
      series.put("drift " + key(s) + " " + reason.label(), pods);
    }

    @Override
    public void removeDriftPods(PortSeries s, MissingReason reason) {
      series.remove("drift " + key(s) + " " + reason.label());
    }

    @Override
    public void readyEndpoints(PortSeries s, int endpoints) {
      series.put("ready " + key(s), endpoints);
    }

    @Override
    public void removeReadyEndpoints(PortSeries s) {
      series.remove("ready " + key(s));
    }

    Integer drift(String service, String port, MissingReason reason) {
      return series.get(
          "drift " + DriftFixtures.NAMESPACE + "/" + service + "/" + port + " " + reason.label());
    }

    Integer ready(String service, String port) {
      return series.get("ready " + DriftFixtures.NAMESPACE + "/" + service + "/" + port);
    }

    Map<String, Integer> series() {
      return series;
    }

    private static String key(PortSeries s) {
      return s.namespace() + "/" + s.service() + "/" + s.port();
    }
  }
}
