package dev.routesync.gate;

import static dev.routesync.gate.GateObjects.containerPort;
import static dev.routesync.gate.GateObjects.namedPort;
import static dev.routesync.gate.GateObjects.pod;
import static dev.routesync.gate.GateObjects.quote;
import static dev.routesync.gate.GateObjects.service;
import static dev.routesync.gate.GateObjects.slice;
import static dev.routesync.gate.GateObjects.slicePort;
import static dev.routesync.gate.GateObjects.withUid;
import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.sync.FakeScheduler;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The gate's clock on a fake scheduler: settle, its restart, the early failure, the timeout. No
 * cluster: the snapshot is whatever the test last set.
 */
class GateRunTest {

  private final FakeScheduler clock = new FakeScheduler();
  private final List<String> progress = new ArrayList<>();
  private final List<Verdict> verdicts = new ArrayList<>();
  private Snapshot snapshot = new Snapshot(List.of(), List.of(), List.of());

  private GateRun run(Targets targets, Duration timeout, Duration settle, boolean allowEmpty) {
    GateRun run =
        new GateRun(
            targets,
            new GateSettings(timeout, settle, allowEmpty),
            clock,
            () -> snapshot,
            progress::add,
            verdicts::add);
    run.start(clock.nanoTime());
    return run;
  }

  private GateRun quoteGate(Duration timeout, Duration settle) {
    return run(Targets.named(GateObjects.NS, List.of("quote")), timeout, settle, false);
  }

  /** {@code n} Ready quote pods declaring {@code portName}, with uids. */
  static List<Pod> quotePods(String prefix, int n, String portName) {
    return IntStream.range(0, n)
        .mapToObj(
            i ->
                withUid(
                    pod(
                        prefix + i,
                        "quote",
                        "10.0.0." + (i + 1),
                        true,
                        containerPort(portName, 8080)),
                    prefix + "-uid-" + i))
        .toList();
  }

  static EndpointSlice withHttp(String name, List<Pod> pods) {
    return slice(name, "quote", List.of(slicePort("http", 8080)), pods);
  }

  private void set(List<Service> services, List<Pod> pods, List<EndpointSlice> slices) {
    snapshot = new Snapshot(services, pods, slices);
  }

  private Verdict verdict() {
    assertThat(verdicts).hasSize(1);
    return verdicts.get(0);
  }

  @Test
  void passesOnceTheConditionHeldForTheWholeSettleTime() {
    List<Pod> pods = quotePods("quote-a-", 8, "http");
    set(List.of(quote()), pods, List.of(withHttp("quote-x", pods)));

    quoteGate(Duration.ofMinutes(5), Duration.ofSeconds(10));
    clock.advance(Duration.ofMillis(9_999));
    assertThat(verdicts).isEmpty();
    clock.advance(Duration.ofMillis(1));

    assertThat(verdict().result()).isEqualTo(Verdict.Result.PASS);
    assertThat(verdict().elapsedNanos()).isEqualTo(Duration.ofSeconds(10).toNanos());
    assertThat(verdict().summary())
        .isEqualTo(
            "pass: every expected pod is a ready endpoint of its port of 1 Service, for 10s");
    assertThat(clock.pendingCount()).isZero(); // the timeout is cancelled
  }

  @Test
  void aBreakDuringSettleRestartsTheClock() {
    List<Pod> pods = quotePods("quote-a-", 2, "http");
    set(List.of(quote()), pods, List.of(withHttp("quote-x", pods)));
    GateRun run = quoteGate(Duration.ofMinutes(5), Duration.ofSeconds(10));

    clock.advance(Duration.ofSeconds(6));
    // A third pod becomes Ready; the controller has not listed it yet: the condition breaks.
    List<Pod> three = new ArrayList<>(pods);
    three.add(quotePods("quote-b-", 1, "http").get(0));
    set(List.of(quote()), three, List.of(withHttp("quote-x", pods)));
    run.changed();
    clock.advance(Duration.ofSeconds(1));
    set(List.of(quote()), three, List.of(withHttp("quote-x", three)));
    run.changed();

    // 10 s after the first hold, but only 3 s after the second: no verdict yet.
    clock.advance(Duration.ofSeconds(3));
    assertThat(verdicts).isEmpty();
    clock.advance(Duration.ofSeconds(7));
    assertThat(verdict().result()).isEqualTo(Verdict.Result.PASS);
    assertThat(verdict().elapsedNanos()).isEqualTo(Duration.ofSeconds(17).toNanos());
    assertThat(progress)
        .containsSubsequence(
            "gate +0.0s: every expected pod is a ready endpoint; settling for 10s",
            "gate +6.0s: the condition broke after 6.0s of settling; the settle clock starts"
                + " again when it holds",
            "gate +7.0s: every expected pod is a ready endpoint; settling for 10s");
  }

  @Test
  void theIncidentFailsAtTheFirstNewPodWhileTheOldOnesServe() {
    List<Pod> old = quotePods("quote-a-", 8, "http");
    set(List.of(quote()), old, List.of(withHttp("quote-x", old)));
    GateRun run = quoteGate(Duration.ofMinutes(5), Duration.ofSeconds(10));
    clock.advance(Duration.ofSeconds(2));

    List<Pod> renamed = quotePods("quote-b-", 2, "http-api");
    List<Pod> all = new ArrayList<>(old);
    all.addAll(renamed);
    set(
        List.of(quote()),
        all,
        List.of(withHttp("quote-x", old), slice("quote-y", "quote", null, renamed)));
    run.changed();

    Verdict verdict = verdict();
    assertThat(verdict.result()).isEqualTo(Verdict.Result.FAIL);
    assertThat(verdict.elapsedNanos()).isEqualTo(Duration.ofSeconds(2).toNanos());
    assertThat(verdict.summary())
        .isEqualTo(
            "fail: pod quote-b-0 is Ready but can never be an endpoint: NamedPortNotFound, port"
                + " http (80 -> http/TCP): no container port named http; the pod declares"
                + " http-api (closest: http-api)");
    PortResult port = verdict.evaluation().orElseThrow().services().get(0).ports().get(0);
    assertThat(port.expected()).isEqualTo(10);
    assertThat(port.ready()).isEqualTo(8);
    assertThat(port.missing())
        .extracting(MissingPod::pod)
        .containsExactly("quote-b-0", "quote-b-1");
    assertThat(clock.pendingCount()).isZero();
  }

  @Test
  void aProtocolMismatchFailsAtOnce() {
    List<Pod> pods =
        List.of(
            withUid(
                pod("quote-a-0", "quote", "10.0.0.1", true, containerPort("http", 8080, "UDP")),
                "u0"));
    set(List.of(quote()), pods, List.of(slice("quote-y", "quote", null, pods)));

    quoteGate(Duration.ofMinutes(5), Duration.ofSeconds(10));

    assertThat(verdict().result()).isEqualTo(Verdict.Result.FAIL);
    assertThat(verdict().summary()).contains("ProtocolMismatch").contains("declares http as UDP");
  }

  @Test
  void aPodNotYetListedIsWaitedForAndPassesWhenTheSliceCatchesUp() {
    List<Pod> pods = quotePods("quote-a-", 2, "http");
    set(List.of(quote()), pods, List.of(withHttp("quote-x", pods.subList(0, 1))));
    GateRun run = quoteGate(Duration.ofSeconds(30), Duration.ofSeconds(1));

    clock.advance(Duration.ofSeconds(20));
    assertThat(verdicts).isEmpty();
    set(List.of(quote()), pods, List.of(withHttp("quote-x", pods)));
    run.changed();
    clock.advance(Duration.ofSeconds(1));

    assertThat(verdict().result()).isEqualTo(Verdict.Result.PASS);
  }

  @Test
  void aPodNeverListedFailsAtTheTimeoutWithNotInEndpoints() {
    List<Pod> pods = quotePods("quote-a-", 2, "http");
    set(List.of(quote()), pods, List.of(withHttp("quote-x", pods.subList(0, 1))));
    quoteGate(Duration.ofSeconds(30), Duration.ofSeconds(1));

    clock.advance(Duration.ofMillis(29_999));
    assertThat(verdicts).isEmpty();
    clock.advance(Duration.ofMillis(1));

    Verdict verdict = verdict();
    assertThat(verdict.result()).isEqualTo(Verdict.Result.FAIL);
    assertThat(verdict.summary())
        .isEqualTo("fail: timed out after 30s: 1 expected pod is not a ready endpoint");
    MissingPod missing =
        verdict.evaluation().orElseThrow().services().get(0).ports().get(0).missing().get(0);
    assertThat(missing.pod()).isEqualTo("quote-a-1");
    assertThat(missing.missing().reason().label()).isEqualTo("NotInEndpoints");
    assertThat(missing.missing().message())
        .isEqualTo(
            "port http (80 -> http/TCP): resolves to 8080, but the pod is not a ready endpoint"
                + " with this port");
  }

  @Test
  void aTimeoutWhileSettlingFailsSayingHowLongItHeld() {
    List<Pod> pods = quotePods("quote-a-", 1, "http");
    set(List.of(quote()), pods, List.of());
    GateRun run = quoteGate(Duration.ofSeconds(30), Duration.ofSeconds(10));
    clock.advance(Duration.ofSeconds(25));
    set(List.of(quote()), pods, List.of(withHttp("quote-x", pods)));
    run.changed();
    clock.advance(Duration.ofSeconds(5));

    assertThat(verdict().summary())
        .isEqualTo(
            "fail: timed out after 30s: the condition held for only 5.0s of the 10s settle time");
  }

  @Test
  void aServiceWithoutExpectedPodsWaitsUnlessEmptyIsAllowed() {
    Pod notReady =
        withUid(pod("quote-a-0", "quote", "10.0.0.1", false, containerPort("http", 1)), "u");
    set(
        List.of(quote()),
        List.of(notReady),
        List.of(slice("quote-x", "quote", null, List.of(notReady))));

    quoteGate(Duration.ofSeconds(5), Duration.ZERO);
    clock.advance(Duration.ofSeconds(5));
    assertThat(verdict().summary())
        .isEqualTo(
            "fail: timed out after 5s: a Service has no expected pods (--allow-empty accepts"
                + " that)");

    verdicts.clear();
    run(
        Targets.named(GateObjects.NS, List.of("quote")),
        Duration.ofSeconds(5),
        Duration.ZERO,
        true);
    assertThat(verdict().result()).isEqualTo(Verdict.Result.PASS);
  }

  @Test
  void aWatchRefusedMidRunEndsTheRunAsCannotEvaluate() {
    List<Pod> pods = quotePods("quote-a-", 1, "http");
    set(List.of(quote()), pods, List.of());
    GateRun run = quoteGate(Duration.ofMinutes(5), Duration.ZERO);
    clock.advance(Duration.ofSeconds(3));

    run.cannotEvaluate("cannot watch pods in namespace shop: forbidden");
    run.cannotEvaluate("a second report changes nothing");
    run.changed();

    assertThat(verdict().result()).isEqualTo(Verdict.Result.ERROR);
    assertThat(verdict().summary())
        .isEqualTo("cannot evaluate: cannot watch pods in namespace shop: forbidden");
    assertThat(verdict().evaluation()).isPresent(); // the last state, for the JSON
    assertThat(clock.pendingCount()).isZero();
  }

  @Test
  void aNamedServiceThatDoesNotExistCannotBeEvaluated() {
    set(List.of(quote()), List.of(), List.of());

    run(
        Targets.named(GateObjects.NS, List.of("quote", "cart")),
        Duration.ofMinutes(5),
        Duration.ZERO,
        true);

    assertThat(verdict().result()).isEqualTo(Verdict.Result.ERROR);
    assertThat(verdict().result().exitCode()).isEqualTo(3);
    assertThat(verdict().summary())
        .isEqualTo("cannot evaluate: Service cart not found in namespace shop");
  }

  @Test
  void aServiceWithoutSelectorIsNotedNotFailedAndAloneCannotBeEvaluated() {
    Service manual =
        new ServiceBuilder(quote())
            .editMetadata()
            .withName("legacy")
            .endMetadata()
            .editSpec()
            .withSelector(null)
            .endSpec()
            .build();
    List<Pod> pods = quotePods("quote-a-", 1, "http");
    set(List.of(quote(), manual), pods, List.of(withHttp("quote-x", pods)));

    run(
        Targets.named(GateObjects.NS, List.of("quote", "legacy")),
        Duration.ofMinutes(5),
        Duration.ZERO,
        false);
    assertThat(verdict().result()).isEqualTo(Verdict.Result.PASS);
    assertThat(progress)
        .contains(
            "gate +0.0s: shop/legacy: not checked: no selector: its endpoints are written by hand"
                + " or by another controller, not by the EndpointSlice controller");

    verdicts.clear();
    run(
        Targets.named(GateObjects.NS, List.of("legacy")),
        Duration.ofMinutes(5),
        Duration.ZERO,
        false);
    assertThat(verdict().result()).isEqualTo(Verdict.Result.ERROR);
    assertThat(verdict().summary())
        .isEqualTo(
            "cannot evaluate: none of the Services has endpoints from the EndpointSlice"
                + " controller; nothing to check in namespace shop");
  }

  @Test
  void aMultiPortServiceWaitsForThePortThatIsMissing() {
    Service twoPorts =
        service(
            "quote",
            "quote",
            "front",
            namedPort("http", 80, "http"),
            namedPort("metrics", 9090, "metrics"));
    List<Pod> pods =
        List.of(
            withUid(
                pod(
                    "quote-a-0",
                    "quote",
                    "10.0.0.1",
                    true,
                    containerPort("http", 8080),
                    containerPort("metrics", 9090)),
                "u0"));
    // The controller's slice carries http only (a stale slice: metrics not yet added).
    set(List.of(twoPorts), pods, List.of(withHttp("quote-x", pods)));
    quoteGate(Duration.ofSeconds(10), Duration.ZERO);
    clock.advance(Duration.ofSeconds(10));

    List<PortResult> ports = verdict().evaluation().orElseThrow().services().get(0).ports();
    assertThat(ports).extracting(PortResult::name).containsExactly("http", "metrics");
    assertThat(ports.get(0).missing()).isEmpty();
    assertThat(ports.get(1).missing())
        .extracting(m -> m.missing().reason().label())
        .containsExactly("NotInEndpoints");
    assertThat(verdict().result()).isEqualTo(Verdict.Result.FAIL);
  }

  @Test
  void progressIsOneLinePerStateChangeNotPerEvent() {
    List<Pod> pods = quotePods("quote-a-", 2, "http");
    set(List.of(quote()), pods, List.of(withHttp("quote-x", pods.subList(0, 1))));
    GateRun run = quoteGate(Duration.ofSeconds(30), Duration.ofSeconds(1));
    for (int i = 0; i < 100; i++) {
      run.changed(); // events that change nothing the gate looks at
    }
    set(List.of(quote()), pods, List.of(withHttp("quote-x", pods)));
    run.changed();
    run.changed();

    assertThat(progress)
        .containsExactly(
            "gate +0.0s: shop/quote port http (80 -> http/TCP): 2 expected, 1 ready, 1 missing:"
                + " quote-a-1 NotInEndpoints",
            "gate +0.0s: shop/quote port http (80 -> http/TCP): 2 expected, 2 ready, 0 missing",
            "gate +0.0s: every expected pod is a ready endpoint; settling for 1s");
  }
}
