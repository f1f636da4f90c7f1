package dev.routesync.serve;

import com.google.protobuf.CodedInputStream;
import dev.routesync.api.v1.WatchEvent;
import dev.routesync.api.v1.WatchRequest;
import dev.routesync.bench.Tables;
import dev.routesync.observe.Metrics;
import dev.routesync.table.Freshness;
import dev.routesync.table.Port;
import dev.routesync.table.RoutingTable;
import dev.routesync.table.ServiceKey;
import dev.routesync.table.ServiceState;
import dev.routesync.table.TableTrust;
import dev.routesync.table.TableWriter;
import dev.routesync.xds.XdsServer;
import io.envoyproxy.envoy.config.core.v3.Node;
import io.envoyproxy.envoy.service.discovery.v3.AggregatedDiscoveryServiceGrpc;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryResponse;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.StreamObserver;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.micrometer.MicrometerMetricsFactory;
import io.vertx.micrometer.MicrometerMetricsOptions;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
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
 * Fan-out: {@code subscribers} Watch streams (or ADS streams) on the agent's serving stack, each on
 * its own connection, while the table takes {@code rate} Service changes per second over a table of
 * {@code services} Services. It reports the server's CPU per delivered message and the receipt
 * latency (publish to received), so what one more subscriber costs can be read off 10 / 100 / 500.
 *
 * <p>Modes, side by side in one run:
 *
 * <ul>
 *   <li>{@code watchShared}: Watch, each changed Service encoded once per version and its bytes
 *       shared by every stream ({@link EncodedServices}, what the agent runs);
 *   <li>{@code watchPerStream}: Watch, every stream encoding every Service it sends, as before the
 *       encodings were shared ({@link PerStreamEncodings}, this module's baseline);
 *   <li>{@code ads}: state-of-the-world ADS (xDS), each stream following {@code adsNames} EDS
 *       clusters, acknowledging every response as gRPC's xDS clients do. The agent's assignment
 *       cache is shared per (Service, cluster name, version); its unshared baseline cannot be
 *       chosen through {@code XdsServer}'s public constructor, so ADS runs shared only.
 * </ul>
 *
 * <p>The feed: the benchmark thread publishes {@code rate * batchMillis / 1000} randomly chosen
 * Services (new endpoint IPs, a real change each time) every {@code batchMillis}, the way a
 * coalescer flushes under steady churn. Watch streams follow everything and start from the table's
 * version ({@code resume_from_version}, so no 10,000-Service snapshot per subscriber), so each
 * version is one message to every stream that keeps up; a stream that falls behind gets one message
 * for several versions (the Watch's coalescing), which the latency then shows.
 *
 * <p>The clients are grpc-java (Netty epoll, one channel per subscriber, on two shared event-loop
 * threads named {@code fanout-client-*}) in this process: their own cost is kept small (a Watch
 * client reads only the event's version field, an ADS client parses the response and sends its ACK)
 * and is subtracted, not counted. CPU figures:
 *
 * <ul>
 *   <li>{@code loopCpuMicrosPerMessage}: CPU time of the server's Vert.x event-loop threads
 *       (ThreadMXBean, per thread) over the measured run, per message delivered to a client: the
 *       streams' encoding, assembly and writes;
 *   <li>{@code serverCpuMicrosPerMessage}: the whole process's CPU minus the client threads' and
 *       the feed thread's, per delivered message: also GC, JIT and Vert.x's other threads;
 *   <li>{@code feedCpuMicrosPerVersion}: the feed thread (building the changed Services, publishing
 *       the table, the serving side's publish hooks), per published version.
 * </ul>
 *
 * <p>Latency: for Watch, every version a stream must deliver, from its publish to the receipt of
 * the first message at that version or later; for ADS, each response, from the publish of the
 * version it carries to its receipt. Both at 10 µs resolution, measured versions only (after a
 * warmup run of the same length). On 2 shared cores the clients compete with the server, so the
 * latencies are an upper bound; compare modes within one run.
 *
 * <p>About 15 s per case (setup, one warmup run, one measured run of {@code seconds}); the default
 * 9 cases take about 2.5 minutes:
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar FanOutBenchmark
 * java -jar benchmarks/target/benchmarks.jar FanOutBenchmark -p subscribers=10 -p seconds=1   # smoke
 * </pre>
 *
 * <p>In the package of the class it configures ({@code dev.routesync.serve}, package-private
 * constructor of {@link ApiServer} taking the Watch encodings, {@link ServiceEncodings}): the
 * benchmark jar puts both on one class path, so nothing production is public for it.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 1)
@Measurement(iterations = 1)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xmx1g"})
public class FanOutBenchmark {

  @Param({"10", "100", "500"})
  int subscribers;

  @Param({"watchShared", "watchPerStream", "ads"})
  String mode;

  /** Service changes per second. */
  @Param({"1000"})
  int rate;

  /** How often the feed publishes a version (its changes batched, as a coalescer would). */
  @Param({"50"})
  int batchMillis;

  @Param({"10000"})
  int services;

  /** Endpoints per Service. */
  @Param({"5"})
  int endpoints;

  /** EDS clusters each ADS stream follows. */
  @Param({"100"})
  int adsNames;

  /** Length of the warmup run and of the measured run. */
  @Param({"5"})
  int seconds;

  private static final List<Port> SERVICE_PORTS = List.of(new Port("http", 80, "TCP"));
  private static final String CLIENT_THREADS = "fanout-client-";
  private static final int LATENCY_BUCKETS = 1_000_000; // 10 µs each: up to 10 s
  private static final int RING = 1 << 16;

  private static final MethodDescriptor<WatchRequest, Long> WATCH =
      MethodDescriptor.<WatchRequest, Long>newBuilder()
          .setType(MethodDescriptor.MethodType.SERVER_STREAMING)
          .setFullMethodName("routesync.v1.Registry/Watch")
          .setRequestMarshaller(ProtoUtils.marshaller(WatchRequest.getDefaultInstance()))
          .setResponseMarshaller(new VersionOnly())
          .build();

  private Vertx vertx;
  private Path dir;
  private ApiServer server;
  private TableWriter writer;
  private ServiceEncodings encodings;
  private EpollEventLoopGroup group;
  private final List<ManagedChannel> channels = new ArrayList<>();
  private final List<ClientCallStreamObserver<?>> calls = new ArrayList<>();
  private final Random random = new Random(42);
  private int generation;
  private Thread feedThread;

  // Shared with the client threads.
  private final AtomicLongArray publishedAt = new AtomicLongArray(RING);
  private final AtomicLongArray latency = new AtomicLongArray(LATENCY_BUCKETS);
  private final AtomicLong messages = new AtomicLong();
  private final AtomicLong latencies = new AtomicLong();
  private final AtomicInteger started = new AtomicInteger();
  private final AtomicInteger failed = new AtomicInteger();
  private volatile long measureFrom = Long.MAX_VALUE;

  /** What JMH prints beside the run's time. */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.EVENTS)
  public static class Result {
    public double loopCpuMicrosPerMessage;
    public double serverCpuMicrosPerMessage;
    public double feedCpuMicrosPerVersion;
    public double messagesPerSecond;
    public long p50Micros;
    public long p99Micros;
    public long maxMicros;
    public long encodesPerVersion;
  }

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    vertx =
        Vertx.builder()
            .with(
                new VertxOptions()
                    .setPreferNativeTransport(true)
                    .setMetricsOptions(new MicrometerMetricsOptions().setEnabled(true)))
            .withMetrics(new MicrometerMetricsFactory(registry))
            .build();
    writer = new TableWriter(Clock.systemUTC(), RoutingTable.DEFAULT_DELTA_LOG_CAPACITY);
    Map<ServiceKey, ServiceState> table = new HashMap<>();
    for (int s = 0; s < services; s++) {
      table.put(Tables.key(s), new ServiceState(Tables.endpoints(s, endpoints, 0), SERVICE_PORTS));
    }
    writer.publish(table, List.of());
    Readiness readiness = new Readiness();
    readiness.socketListening(true);
    readiness.initialSyncDone();
    Metrics metrics = new Metrics(registry);
    encodings = mode.equals("watchPerStream") ? new PerStreamEncodings() : new EncodedServices();
    dir = Files.createTempDirectory("routesync-fanout");
    server =
        new ApiServer(
            vertx,
            writer,
            Freshness.unwatched(TableTrust.synced()),
            metrics.serve(),
            readiness,
            ApiServerOptions.onSocket(dir.resolve("api.sock")),
            encodings);
    server.serveXds(new XdsServer(vertx, writer, TableTrust.synced(), metrics.xds()));
    writer.onPublish(server::published);
    server.listen().await(10, TimeUnit.SECONDS);

    AtomicInteger threads = new AtomicInteger();
    ThreadFactory named =
        task -> {
          Thread thread = new Thread(task, CLIENT_THREADS + threads.incrementAndGet());
          thread.setDaemon(true);
          return thread;
        };
    group = new EpollEventLoopGroup(2, named);
    for (int i = 0; i < subscribers; i++) {
      ManagedChannel channel =
          NettyChannelBuilder.forAddress(new DomainSocketAddress(server.socketPath().toString()))
              .eventLoopGroup(group)
              .channelType(EpollDomainSocketChannel.class)
              .overrideAuthority("localhost")
              .usePlaintext()
              .build();
      channels.add(channel);
      if (mode.equals("ads")) {
        openAds(channel, i);
      } else {
        openWatch(channel);
      }
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (started.get() < subscribers && System.nanoTime() < deadline) {
      check();
      LockSupport.parkNanos(1_000_000);
    }
    if (started.get() < subscribers) {
      throw new IllegalStateException(started.get() + " of " + subscribers + " streams started");
    }
  }

  private void check() {
    if (failed.get() > 0) {
      throw new IllegalStateException(failed.get() + " streams failed");
    }
  }

  private CallOptions options() {
    return CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.MINUTES);
  }

  /** A Watch from the current version: its first message is an empty delta. */
  private void openWatch(ManagedChannel channel) {
    long from = writer.current().version();
    ClientCalls.asyncServerStreamingCall(
        channel.newCall(WATCH, options()),
        WatchRequest.newBuilder().setResumeFromVersion(from).build(),
        new StreamObserver<Long>() {
          long last = -1;

          @Override
          public void onNext(Long version) {
            long now = System.nanoTime();
            if (last < 0) {
              started.incrementAndGet();
            } else {
              long first = Math.max(last + 1, measureFrom);
              for (long v = first; v <= version; v++) {
                record(now - publishedAt.get((int) (v & (RING - 1))));
              }
              if (version >= measureFrom) {
                messages.incrementAndGet();
              }
            }
            last = version;
          }

          @Override
          public void onError(Throwable error) {
            failed.incrementAndGet();
          }

          @Override
          public void onCompleted() {}
        });
  }

  /** An ADS stream following {@code adsNames} EDS clusters, acknowledging every response. */
  private void openAds(ManagedChannel channel, int index) {
    DiscoveryRequest.Builder subscribe =
        DiscoveryRequest.newBuilder()
            .setNode(Node.newBuilder().setId("node-" + index).setUserAgentName("grpc-java"))
            .setTypeUrl("type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment");
    for (int n = 0; n < adsNames; n++) {
      ServiceKey key = Tables.key((index * 7919 + n * 97) % services);
      subscribe.addResourceNames(key.name() + "." + key.namespace() + ".svc.cluster.local:80");
    }
    DiscoveryRequest subscription = subscribe.build();
    ClientCalls.asyncBidiStreamingCall(
            channel.newCall(
                AggregatedDiscoveryServiceGrpc.getStreamAggregatedResourcesMethod(), options()),
            new ClientResponseObserver<DiscoveryRequest, DiscoveryResponse>() {
              ClientCallStreamObserver<DiscoveryRequest> requests;
              boolean first = true;

              @Override
              public void beforeStart(ClientCallStreamObserver<DiscoveryRequest> stream) {
                requests = stream;
                synchronized (calls) {
                  calls.add(stream);
                }
              }

              @Override
              public void onNext(DiscoveryResponse response) {
                long now = System.nanoTime();
                long version = Long.parseLong(response.getVersionInfo());
                if (first) {
                  first = false;
                  started.incrementAndGet();
                } else if (version >= measureFrom) {
                  record(now - publishedAt.get((int) (version & (RING - 1))));
                  messages.incrementAndGet();
                }
                requests.onNext(
                    subscription.toBuilder()
                        .clearNode()
                        .setVersionInfo(response.getVersionInfo())
                        .setResponseNonce(response.getNonce())
                        .build());
              }

              @Override
              public void onError(Throwable error) {
                failed.incrementAndGet();
              }

              @Override
              public void onCompleted() {}
            })
        .onNext(subscription);
  }

  private void record(long nanos) {
    int bucket = (int) Math.min(LATENCY_BUCKETS - 1, Math.max(0, nanos / 10_000));
    latency.incrementAndGet(bucket);
    latencies.incrementAndGet();
  }

  private void publishOne() {
    int changes = Math.max(1, rate * batchMillis / 1000);
    Map<ServiceKey, ServiceState> changed = new HashMap<>();
    generation++;
    while (changed.size() < changes) {
      int s = random.nextInt(services);
      changed.put(
          Tables.key(s),
          new ServiceState(Tables.endpoints(s, endpoints, generation), SERVICE_PORTS));
    }
    long next = writer.current().version() + 1;
    publishedAt.set((int) (next & (RING - 1)), System.nanoTime());
    RoutingTable table = writer.publish(changed, List.of());
    if (table.version() != next) {
      throw new IllegalStateException("version " + table.version() + ", expected " + next);
    }
  }

  /** One run: {@code seconds} of the feed, then until every stream has the last version. */
  private void feed(long versions) {
    long interval = TimeUnit.MILLISECONDS.toNanos(batchMillis);
    long start = System.nanoTime();
    for (long i = 0; i < versions; i++) {
      long wait = start + i * interval - System.nanoTime();
      if (wait > 0) {
        LockSupport.parkNanos(wait);
      }
      publishOne();
    }
  }

  @Benchmark
  public void fanOut(Result result) throws Exception {
    check();
    feedThread = Thread.currentThread();
    long versions = TimeUnit.SECONDS.toMillis(seconds) / batchMillis;
    for (int i = 0; i < LATENCY_BUCKETS; i++) {
      latency.set(i, 0);
    }
    messages.set(0);
    latencies.set(0);
    measureFrom = writer.current().version() + 1;
    long encodesBefore = encodings.encodes();
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    Map<String, Long> before = cpuByKind(threads);
    long processBefore = processCpuNanos();
    long wallStart = System.nanoTime();

    feed(versions);
    // Let the last messages arrive (bounded): the clients' counts are then complete. A Watch stream
    // owes one latency per version; an ADS stream's count is unknown, so wait for a quiet spell.
    long expected = mode.equals("ads") ? 0 : versions * subscribers;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    long lastCount = -1;
    while (System.nanoTime() < deadline) {
      long seen = latencies.get();
      if (expected > 0 ? seen >= expected : seen == lastCount) {
        break;
      }
      lastCount = seen;
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(500));
    }

    long wall = System.nanoTime() - wallStart;
    Map<String, Long> after = cpuByKind(threads);
    long process = processCpuNanos() - processBefore;
    long loops = after.get("loop") - before.get("loop");
    long clients = after.get("client") - before.get("client");
    long feed = after.get("feed") - before.get("feed");
    long delivered = messages.get();
    result.loopCpuMicrosPerMessage = delivered == 0 ? 0 : loops / 1e3 / delivered;
    result.serverCpuMicrosPerMessage =
        delivered == 0 ? 0 : (process - clients - feed) / 1e3 / delivered;
    result.feedCpuMicrosPerVersion = feed / 1e3 / versions;
    result.messagesPerSecond = delivered / (wall / 1e9);
    result.p50Micros = percentile(0.50);
    result.p99Micros = percentile(0.99);
    result.maxMicros = percentile(1.0);
    result.encodesPerVersion = (encodings.encodes() - encodesBefore) / versions;
    System.out.printf(
        "%nfan-out %s subscribers=%d: %d versions, %d messages (%.0f/s), %d latencies; CPU ms:"
            + " event loops %d, process %d, clients %d, feed %d; p50=%dus p99=%dus max=%dus;"
            + " %d Watch encodes; load %.2f%n",
        mode,
        subscribers,
        versions,
        delivered,
        result.messagesPerSecond,
        latencies.get(),
        loops / 1_000_000,
        process / 1_000_000,
        clients / 1_000_000,
        feed / 1_000_000,
        result.p50Micros,
        result.p99Micros,
        result.maxMicros,
        encodings.encodes() - encodesBefore,
        ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    check();
  }

  private long percentile(double quantile) {
    long total = latencies.get();
    if (total == 0) {
      return 0;
    }
    long rank = Math.max(1, (long) Math.ceil(total * quantile));
    long seen = 0;
    for (int i = 0; i < LATENCY_BUCKETS; i++) {
      seen += latency.get(i);
      if (seen >= rank) {
        return (i + 1) * 10L;
      }
    }
    return LATENCY_BUCKETS * 10L;
  }

  /** CPU nanoseconds of the server's event loops, the clients' threads and the feed thread. */
  private Map<String, Long> cpuByKind(ThreadMXBean threads) {
    long loop = 0;
    long client = 0;
    for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
      if (info == null) {
        continue;
      }
      long cpu = threads.getThreadCpuTime(info.getThreadId());
      if (cpu < 0) {
        continue;
      }
      if (info.getThreadName().startsWith("vert.x-eventloop-thread-")) {
        loop += cpu;
      } else if (info.getThreadName().startsWith(CLIENT_THREADS)) {
        client += cpu;
      }
    }
    return Map.of(
        "loop", loop, "client", client, "feed", threads.getThreadCpuTime(feedThread.getId()));
  }

  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  @TearDown(Level.Trial)
  public void tearDown() throws Exception {
    synchronized (calls) {
      for (ClientCallStreamObserver<?> call : calls) {
        call.cancel("benchmark done", null);
      }
    }
    for (ManagedChannel channel : channels) {
      channel.shutdownNow();
    }
    for (ManagedChannel channel : channels) {
      channel.awaitTermination(10, TimeUnit.SECONDS);
    }
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
    server.shutdown(java.time.Duration.ZERO).await(10, TimeUnit.SECONDS);
    vertx.close().await(10, TimeUnit.SECONDS);
    try (var files = Files.list(dir)) {
      for (Path file : files.toList()) {
        Files.deleteIfExists(file);
      }
    }
    Files.deleteIfExists(dir);
  }

  /** A Watch response read only as far as its version (field 1, written first). */
  private static final class VersionOnly implements MethodDescriptor.Marshaller<Long> {
    @Override
    public InputStream stream(Long value) {
      throw new UnsupportedOperationException("responses only");
    }

    @Override
    public Long parse(InputStream stream) {
      try {
        CodedInputStream in = CodedInputStream.newInstance(stream);
        int tag = in.readTag();
        return tag == (WatchEvent.VERSION_FIELD_NUMBER << 3) ? in.readUInt64() : 0L;
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
