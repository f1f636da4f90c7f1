package dev.routesync.xds;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.testing.AdsClient;
import dev.routesync.testing.ForkedAgent;
import dev.routesync.testing.GrpcJavaClient;
import dev.routesync.testing.RawBytes;
import io.envoyproxy.envoy.service.discovery.v3.DeltaDiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DeltaDiscoveryResponse;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryResponse;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * One xDS client asking for tens of thousands of names must not take the agent down. Each case runs
 * against the agent in a JVM of its own with the image's heap flags ({@link ForkedAgent}): the
 * process stays up, {@code /healthz} answers within 1 s throughout, the event loop is never
 * reported blocked, and the hostile client gets its answer or a status that names the limit.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class HostileAdsRequestsTest {

  private static final MethodDescriptor<byte[], byte[]> SOTW = raw("StreamAggregatedResources");
  private static final MethodDescriptor<byte[], byte[]> DELTA = raw("DeltaAggregatedResources");

  /** How long the hostile client waits for its answer or a status. */
  private static final Duration OUTCOME_TIMEOUT = Duration.ofSeconds(30);

  private ForkedAgent agent;
  private GrpcJavaClient grpc;
  private HealthzPoller healthz;

  @BeforeEach
  void start() throws IOException {
    // Churn off: a push while the hostile request is answered is not what these cases measure.
    agent = ForkedAgent.start("--churn-every=600000");
    grpc = new GrpcJavaClient(agent.socket());
    healthz = new HealthzPoller(agent);
  }

  @AfterEach
  void stop(org.junit.jupiter.api.TestInfo test) throws Exception {
    healthz.close();
    grpc.close();
    java.util.regex.Matcher blocked =
        java.util.regex.Pattern.compile("has been blocked for (\\d+) ms").matcher(agent.log());
    long longestBlock = 0;
    while (blocked.find()) {
      longestBlock = Math.max(longestBlock, Long.parseLong(blocked.group(1)));
    }
    System.out.printf(
        "%s: forked agent alive=%s peak heap=%d MiB peak RSS=%d KiB longest blocked=%d ms"
            + " longest GC pause=%.1f ms oom=%s%n",
        test.getDisplayName(),
        agent.alive(),
        agent.peakHeapMib(),
        agent.peakRssKib(),
        longestBlock,
        agent.longestGcPauseMillis(),
        agent.log().contains("java.lang.OutOfMemoryError"));
    agent.close();
  }

  @Test
  void fiftyThousandListenerNamesInOneRequestLeaveTheAgentUp() throws Exception {
    HostileStream stream = sotw(XdsType.LISTENER, names(50_000, ":8080"));
    assertAnsweredOrRefused(List.of(stream), 50_000);
  }

  @Test
  void aHundredThousandEndpointNamesInOneRequestLeaveTheAgentUp() throws Exception {
    HostileStream stream = sotw(XdsType.ENDPOINT, names(100_000, ".svc.cluster.local:80"));
    assertAnsweredOrRefused(List.of(stream), 100_000);
  }

  @Test
  void threeConcurrentStreamsOfTwentyFiveThousandListenerNamesLeaveTheAgentUp() throws Exception {
    List<HostileStream> streams = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      streams.add(sotw(XdsType.LISTENER, names(25_000, ":" + (8080 + i))));
    }
    assertAnsweredOrRefused(streams, 25_000);
  }

  @Test
  void aDeltaStreamOfThirtyThousandNamesPerTypeLeavesTheAgentUp() throws Exception {
    HostileStream stream = delta(names(30_000, ".svc.cluster.local:80"));
    assertAnsweredOrRefused(List.of(stream), 4 * 30_000);
  }

  @Test
  void aLargeRequestWithinTheLimitsIsAnsweredWhileProbesAreToo() throws Exception {
    // Within the 96 MiB agent's limits (11,880 names, a response of about 3.9 MiB, some 10,000
    // listeners): answered in full, built over many slices of the event loop.
    HostileStream stream = sotw(XdsType.LISTENER, names(5_000, ":8080"));
    Outcome outcome = stream.outcome.get(OUTCOME_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    assertThat(outcome.status()).isNull();
    assertThat(outcome.resources()).isEqualTo(5_000);
    assertAnsweredOrRefused(List.of(), 0);
  }

  private void assertAnsweredOrRefused(List<HostileStream> streams, int resourcesPerStream)
      throws Exception {
    for (HostileStream stream : streams) {
      Outcome outcome = stream.outcome.get(OUTCOME_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      System.out.printf(
          "hostile stream: %d resources, status %s%n", outcome.resources(), outcome.status());
      if (outcome.status() != null) {
        assertThat(outcome.status().getCode())
            .as("a refusal is RESOURCE_EXHAUSTED: %s", outcome.status())
            .isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
        assertThat(outcome.status().getDescription()).as("names the limit").contains("limit");
      } else {
        assertThat(outcome.resources()).isEqualTo(resourcesPerStream);
      }
    }
    // Another client is answered as usual.
    try (AdsClient innocent =
        AdsClient.open(grpc.channel(), AdsClient.node("innocent", "zone-a"))) {
      innocent.subscribe(AdsClient.LDS, "cart.shop:80");
      assertThat(innocent.take(AdsClient.LDS).getResourcesCount()).isEqualTo(1);
    }
    healthz.close();
    String log = agent.log();
    assertThat(agent.alive()).as("agent alive; its log:\n%s", log).isTrue();
    // One probe past 1 s on a machine at load 10 is the machine's scheduling, and kubelet acts only
    // on consecutive failures (failureThreshold); an agent whose event loop is held misses every
    // probe while it is. So: never two misses in a row, and the blocked-thread checker silent.
    assertThat(healthz.longestMissRun())
        .as("/healthz probes in a row unanswered within 1 s (of %d)", healthz.failures())
        .isLessThanOrEqualTo(1);
    assertThat(healthz.polls()).isPositive();
    assertThat(log)
        .doesNotContain("has been blocked for")
        .doesNotContain("java.lang.OutOfMemoryError");
  }

  private static List<String> names(int count, String suffix) {
    List<String> names = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      names.add("svc-" + i + ".shop" + suffix);
    }
    return names;
  }

  private HostileStream sotw(XdsType type, List<String> names) {
    HostileStream stream =
        new HostileStream(grpc.channel().newCall(SOTW, callOptions()), names.size());
    stream.start(
        bytes -> {
          DiscoveryResponse response = DiscoveryResponse.parseFrom(bytes);
          System.out.printf(
              "response: %d resources in %d bytes%n", response.getResourcesCount(), bytes.length);
          stream.received(response.getResourcesCount());
          // ACK, repeating the names, as a state-of-the-world client does: the next part comes.
          return request(type, names, response.getNonce());
        });
    stream.send(request(type, names, ""));
    return stream;
  }

  private static byte[] request(XdsType type, List<String> names, String nonce) {
    return DiscoveryRequest.newBuilder()
        .setNode(AdsClient.node("hostile", "zone-a"))
        .setTypeUrl(type.typeUrl())
        .addAllResourceNames(names)
        .setResponseNonce(nonce)
        .build()
        .toByteArray();
  }

  private HostileStream delta(List<String> names) {
    HostileStream stream =
        new HostileStream(grpc.channel().newCall(DELTA, callOptions()), 4 * names.size());
    stream.start(
        bytes -> {
          DeltaDiscoveryResponse response = DeltaDiscoveryResponse.parseFrom(bytes);
          stream.received(response.getResourcesCount());
          return DeltaDiscoveryRequest.newBuilder()
              .setTypeUrl(response.getTypeUrl())
              .setResponseNonce(response.getNonce())
              .build()
              .toByteArray();
        });
    for (XdsType type : XdsType.values()) {
      stream.send(
          DeltaDiscoveryRequest.newBuilder()
              .setNode(AdsClient.node("hostile", "zone-a"))
              .setTypeUrl(type.typeUrl())
              .addAllResourceNamesSubscribe(names)
              .build()
              .toByteArray());
    }
    return stream;
  }

  private static CallOptions callOptions() {
    return CallOptions.DEFAULT
        .withDeadlineAfter(60, TimeUnit.SECONDS)
        .withMaxInboundMessageSize(64 * 1024 * 1024);
  }

  private static MethodDescriptor<byte[], byte[]> raw(String method) {
    return MethodDescriptor.<byte[], byte[]>newBuilder()
        .setType(MethodDescriptor.MethodType.BIDI_STREAMING)
        .setFullMethodName("envoy.service.discovery.v3.AggregatedDiscoveryService/" + method)
        .setRequestMarshaller(RawBytes.MARSHALLER)
        .setResponseMarshaller(RawBytes.MARSHALLER)
        .build();
  }

  /** How a hostile stream ended: the resources it got in all, or the status it was ended with. */
  record Outcome(int resources, Status status) {}

  /** Reads one response and returns the ACK to send. */
  @FunctionalInterface
  interface Acker {
    byte[] ack(byte[] response) throws IOException;
  }

  /**
   * One raw ADS stream that ACKs every response and completes {@link #outcome} when it got {@code
   * expected} resources or was ended.
   */
  private static final class HostileStream {
    final CompletableFuture<Outcome> outcome = new CompletableFuture<>();
    private final ClientCall<byte[], byte[]> call;
    private final AtomicInteger resources = new AtomicInteger();
    private final int expected;

    HostileStream(ClientCall<byte[], byte[]> call, int expected) {
      this.call = call;
      this.expected = expected;
    }

    void start(Acker acker) {
      call.start(
          new ClientCall.Listener<>() {
            @Override
            public void onMessage(byte[] message) {
              try {
                byte[] ack = acker.ack(message);
                if (resources.get() >= expected) {
                  outcome.complete(new Outcome(resources.get(), null));
                  call.cancel("answered", null);
                  return;
                }
                call.sendMessage(ack);
                call.request(1);
              } catch (IOException e) {
                outcome.completeExceptionally(e);
              }
            }

            @Override
            public void onClose(Status status, Metadata trailers) {
              outcome.complete(new Outcome(resources.get(), status));
            }
          },
          new Metadata());
      call.request(1);
    }

    void received(int count) {
      resources.addAndGet(count);
    }

    void send(byte[] message) {
      call.sendMessage(message);
    }
  }

  /**
   * Polls {@code /healthz} every 100 ms with a 1 s timeout until closed; counts misses, and the
   * longest run of them.
   */
  private static final class HealthzPoller implements AutoCloseable {
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    private final AtomicInteger polls = new AtomicInteger();
    private final AtomicInteger failures = new AtomicInteger();
    private final AtomicInteger missRun = new AtomicInteger();
    private final AtomicInteger longestMissRun = new AtomicInteger();
    private final AtomicLong slowestMillis = new AtomicLong();
    private final AtomicLong peakRssKib = new AtomicLong(-1);

    HealthzPoller(ForkedAgent agent) {
      timer.scheduleWithFixedDelay(
          () -> {
            long start = System.nanoTime();
            int code = agent.probe("/healthz");
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            slowestMillis.accumulateAndGet(millis, Math::max);
            polls.incrementAndGet();
            peakRssKib.accumulateAndGet(agent.peakRssKib(), Math::max);
            if (code != 200) {
              failures.incrementAndGet();
              longestMissRun.accumulateAndGet(missRun.incrementAndGet(), Math::max);
            } else {
              missRun.set(0);
            }
          },
          0,
          100,
          TimeUnit.MILLISECONDS);
    }

    int polls() {
      return polls.get();
    }

    int failures() {
      return failures.get();
    }

    /** The most probes in a row that went unanswered within 1 s. */
    int longestMissRun() {
      return longestMissRun.get();
    }

    @Override
    public void close() throws InterruptedException {
      if (!timer.isShutdown()) {
        timer.shutdown();
        timer.awaitTermination(5, TimeUnit.SECONDS);
        System.out.printf(
            "/healthz: %d polls, %d unanswered within 1 s, slowest %d ms; peak RSS %d KiB%n",
            polls.get(), failures.get(), slowestMillis.get(), peakRssKib.get());
      }
    }
  }
}
