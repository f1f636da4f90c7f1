package dev.routesync.bench;

import dev.routesync.Agent;
import dev.routesync.api.v1.ServiceEndpoints;
import dev.routesync.api.v1.WatchEvent;
import dev.routesync.api.v1.WatchRequest;
import dev.routesync.config.AgentConfig;
import dev.routesync.config.Source;
import dev.routesync.kube.WatchSettings;
import dev.routesync.sync.CoalescerSettings;
import dev.routesync.testing.Slices;
import dev.routesync.testing.Slices.Pod;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.mockwebserver.http.WebSocket;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * End to end under churn: a scripted watch feed -> fabric8 informer -> coalescer -> table -> a
 * grpc-java Watch subscriber on the agent's Unix socket, all real, in one process.
 *
 * <p>Each event changes one of 1,000 services (uniformly) and carries a sequence number in its pod
 * names and the {@code endpoints.kubernetes.io/last-change-trigger-time} annotation (set to the
 * send time, so the two latencies differ only by the annotation's clock). Latency is from sending
 * the event to the subscriber receiving a state that includes it; an event coalesced into a later
 * state counts as received with that state. Rates: {@code 0} is an isolated change (one event, wait
 * for it, 100 times), else events per second for {@code seconds}.
 *
 * <p>Targets: isolated p99 <= 10 ms; at 5,000 events/s p99 <= max-delay (500 ms) + 50 ms, and no
 * growing backlog (the last second's p99 not far above the first's). The aux counters report p50,
 * p99 and max in microseconds, and the first and last second's p99.
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar EndToEndChurnBenchmark -f 1
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 1)
@Measurement(iterations = 1)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xmx2g"})
public class EndToEndChurnBenchmark {

  private static final int SERVICES = 1000;
  private static final MethodDescriptor<WatchRequest, WatchEvent> WATCH =
      MethodDescriptor.<WatchRequest, WatchEvent>newBuilder()
          .setType(MethodDescriptor.MethodType.SERVER_STREAMING)
          .setFullMethodName("routesync.v1.Registry/Watch")
          .setRequestMarshaller(ProtoUtils.marshaller(WatchRequest.getDefaultInstance()))
          .setResponseMarshaller(ProtoUtils.marshaller(WatchEvent.getDefaultInstance()))
          .build();

  /** Events per second; 0 = isolated changes. */
  @Param({"0", "1000", "5000"})
  int rate;

  /** How long a rated run sends. */
  @Param({"5"})
  int seconds;

  private ScriptedApiServer api;
  private Agent agent;
  private EpollEventLoopGroup group;
  private ManagedChannel channel;
  private WebSocket feed;
  private Path dir;
  private final Map<String, ConcurrentLinkedDeque<long[]>> inFlight = new ConcurrentHashMap<>();
  private final List<long[]> latencies = java.util.Collections.synchronizedList(new ArrayList<>());
  private int sequence;

  /** Figures JMH prints next to the time. */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.EVENTS)
  public static class Latency {
    public long p50Micros;
    public long p99Micros;
    public long maxMicros;
    public long firstSecondP99Micros;
    public long lastSecondP99Micros;
    public long events;
  }

  @Setup(Level.Trial)
  public void start() throws Exception {
    List<EndpointSlice> slices = new ArrayList<>();
    for (int s = 0; s < SERVICES; s++) {
      slices.add(slice(s, 0));
    }
    api = new ScriptedApiServer(slices);
    dir = Files.createTempDirectory("bench");
    AgentConfig config =
        new AgentConfig(
            Source.ENDPOINTSLICES,
            Optional.empty(),
            WatchSettings.of(List.of(), "mesh-managed=true"),
            CoalescerSettings.defaults(),
            dir.resolve("rs.sock"),
            "127.0.0.1",
            0,
            "bench");
    Config kube = new ConfigBuilder(Config.empty()).withMasterUrl(api.url()).build();
    agent = Agent.start(config, kube).await(30, TimeUnit.SECONDS);
    feed = api.awaitWatch();
    agent.initialSync().await(30, TimeUnit.SECONDS);
    group = new EpollEventLoopGroup(1);
    channel =
        NettyChannelBuilder.forAddress(new DomainSocketAddress(dir.resolve("rs.sock").toString()))
            .eventLoopGroup(group)
            .channelType(EpollDomainSocketChannel.class)
            .overrideAuthority("localhost")
            .usePlaintext()
            .build();
    ClientCalls.asyncServerStreamingCall(
        channel.newCall(WATCH, CallOptions.DEFAULT),
        WatchRequest.getDefaultInstance(),
        new StreamObserver<>() {
          @Override
          public void onNext(WatchEvent event) {
            long now = System.nanoTime();
            for (ServiceEndpoints service : event.getUpsertedList()) {
              received(service, now);
            }
          }

          @Override
          public void onError(Throwable error) {}

          @Override
          public void onCompleted() {}
        });
  }

  private static EndpointSlice slice(int service, int seq) {
    List<Pod> pods = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      pods.add(
          Pod.ready(
              "p-" + seq + "-" + i,
              "10." + (service / 250) + "." + (service % 250) + "." + (i + 1 + seq % 3)));
    }
    return new EndpointSliceBuilder(
            Slices.slice("bench", "svc-" + service + "-x", "svc-" + service, true, 8080, pods))
        .editMetadata()
        // Every write bumps the resourceVersion; informers treat an unchanged one as a resync.
        .withResourceVersion(String.valueOf(seq + 1))
        .addToAnnotations(
            "endpoints.kubernetes.io/last-change-trigger-time", Instant.now().toString())
        .endMetadata()
        .build();
  }

  private void received(ServiceEndpoints service, long now) {
    if (service.getEndpointsCount() == 0) {
      return;
    }
    String pod = service.getEndpoints(0).getPod();
    int seq = Integer.parseInt(pod.substring(2, pod.indexOf('-', 2)));
    ConcurrentLinkedDeque<long[]> pending = inFlight.get(service.getName());
    if (pending == null) {
      return;
    }
    long[] head;
    while ((head = pending.peekFirst()) != null && head[0] <= seq) {
      pending.pollFirst();
      latencies.add(new long[] {head[1], now - head[1]});
    }
  }

  private void send(int service) {
    int seq = ++sequence;
    long now = System.nanoTime();
    inFlight
        .computeIfAbsent("svc-" + service, k -> new ConcurrentLinkedDeque<>())
        .addLast(new long[] {seq, now});
    ScriptedApiServer.modified(feed, slice(service, seq));
  }

  @Benchmark
  public void churn(Latency result) throws Exception {
    latencies.clear();
    Random random = new Random(42);
    long start = System.nanoTime();
    int events;
    if (rate == 0) {
      events = 100;
      for (int i = 0; i < events; i++) {
        int before = latencies.size();
        send(random.nextInt(SERVICES));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (latencies.size() == before && System.nanoTime() < deadline) {
          LockSupport.parkNanos(20_000);
        }
        // A quiet spell between isolated changes (longer than the 50 ms debounce).
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(60));
      }
    } else {
      events = rate * seconds;
      long interval = TimeUnit.SECONDS.toNanos(1) / rate;
      for (int i = 0; i < events; i++) {
        long due = start + i * interval;
        long wait = due - System.nanoTime();
        if (wait > 0) {
          LockSupport.parkNanos(wait);
        }
        send(random.nextInt(SERVICES));
      }
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (latencies.size() < events && System.nanoTime() < deadline) {
      LockSupport.parkNanos(1_000_000);
    }
    summarize(result, start, events);
  }

  private void summarize(Latency result, long start, int events) {
    long[][] all = latencies.toArray(new long[0][]);
    long[] micros = Arrays.stream(all).mapToLong(l -> l[1] / 1000).sorted().toArray();
    result.events = micros.length;
    if (micros.length == 0) {
      return;
    }
    result.p50Micros = micros[micros.length / 2];
    result.p99Micros = micros[(int) Math.min(micros.length - 1, (long) micros.length * 99 / 100)];
    result.maxMicros = micros[micros.length - 1];
    long oneSecond = TimeUnit.SECONDS.toNanos(1);
    long lastSecondStart = Arrays.stream(all).mapToLong(l -> l[0]).max().orElse(start) - oneSecond;
    result.firstSecondP99Micros = p99(all, start, start + oneSecond);
    result.lastSecondP99Micros = p99(all, lastSecondStart, Long.MAX_VALUE);
    var publish = agent.registry().get("routesync.publish.latency").timer();
    var programming = agent.registry().get("routesync.network.programming.duration").timer();
    System.out.printf(
        "agent-side: publish latency mean=%.0fus max=%.0fus (n=%d); trigger-time to publish"
            + " mean=%.0fus max=%.0fus (n=%d)%n",
        publish.mean(TimeUnit.MICROSECONDS),
        publish.max(TimeUnit.MICROSECONDS),
        publish.count(),
        programming.mean(TimeUnit.MICROSECONDS),
        programming.max(TimeUnit.MICROSECONDS),
        programming.count());
    System.out.printf(
        "%nend-to-end rate=%s sent=%d received=%d p50=%dus p99=%dus max=%dus first-second-p99=%dus"
            + " last-second-p99=%dus%n",
        rate == 0 ? "isolated" : rate + "/s",
        events,
        micros.length,
        result.p50Micros,
        result.p99Micros,
        result.maxMicros,
        result.firstSecondP99Micros,
        result.lastSecondP99Micros);
  }

  private static long p99(long[][] all, long from, long to) {
    long[] window =
        Arrays.stream(all)
            .filter(l -> l[0] >= from && l[0] < to)
            .mapToLong(l -> l[1] / 1000)
            .sorted()
            .toArray();
    return window.length == 0
        ? 0
        : window[(int) Math.min(window.length - 1, (long) window.length * 99 / 100)];
  }

  @TearDown(Level.Trial)
  public void stop() throws Exception {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    agent.stop().await(30, TimeUnit.SECONDS);
    api.close();
  }

  /** Runs every rate once, outside JMH, printing the same lines. */
  public static void main(String[] args) throws Exception {
    for (int rate : new int[] {0, 0, 1000, 5000}) { // the first isolated pass warms up
      EndToEndChurnBenchmark bench = new EndToEndChurnBenchmark();
      bench.rate = rate;
      bench.seconds = 5;
      bench.start();
      try {
        bench.churn(new Latency());
      } finally {
        bench.stop();
      }
    }
    System.exit(0);
  }
}
