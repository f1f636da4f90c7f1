package dev.routesync.bench;

import static dev.routesync.testing.TableStates.states;

import dev.routesync.api.v1.ResolveRequest;
import dev.routesync.api.v1.ServiceEndpoints;
import dev.routesync.observe.Metrics;
import dev.routesync.table.RoutingTable;
import dev.routesync.table.ServiceKey;
import dev.routesync.table.TableWriter;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ClientCalls;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.micrometer.MicrometerMetricsFactory;
import io.vertx.micrometer.MicrometerMetricsOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
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
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The serving floor: latency of a gRPC {@code Resolve} over the agent's Unix socket against a no-op
 * unary method on the same server, socket, connection and client. The no-op ({@code
 * routesync.bench.Floor/Noop}, see {@link FloorServer}) takes the same {@code ResolveRequest} and
 * answers an empty {@code ServiceEndpoints} after the request has ended, so it is what any unary
 * call over this socket costs: grpc-java client, HTTP/2 over the socket, Vert.x HTTP server and
 * gRPC server, the agent's dispatch. The target is that Resolve's p50 is within 1.5x of the floor's
 * p50: serving should cost little next to the transport a sidecar pays anyway.
 *
 * <p>The table holds 10,000 services of 25 endpoints ({@link Tables}); each call resolves a random
 * one, so lookups do not stay in one cache line. A Resolve answer for 25 endpoints is about 2 KB
 * (1,748 bytes here; the setup prints it), so Resolve minus the floor is the name validation and
 * the table lookup, building the protobuf message for 25 endpoints (in {@code ProtoMapping}) and
 * serializing it, the request metric, and moving and parsing ~2 KB instead of an empty message on
 * the wire and in the client.
 *
 * <p>The server is set up as the agent sets it up: Vert.x with the native transport and Micrometer
 * metrics on a Prometheus registry ({@code -p vertxMetrics=false} turns the Vert.x metrics off, to
 * see what they add to every call), {@code ApiServer}'s HTTP/2 and gRPC options. The client is
 * grpc-java with Netty's epoll transport, blocking unary calls with a 10 s deadline, from one
 * thread, as in the tests' {@code GrpcJavaClient}. Sample time mode, so JMH prints p50, p90, p99 of
 * {@link #resolve} and {@link #noop}; compare the {@code p0.50} rows. Each call hands off between
 * three threads (the caller, grpc-java's event loop, the Vert.x event loop), so those absolute
 * figures mean something only on an otherwise idle machine.
 *
 * <p>JMH runs {@code resolve} and {@code noop} one after the other, so load that comes or goes
 * between the two phases moves their ratio: under a concurrent benchmark both calls ran ~10x slower
 * than idle and the ratio read 2.03x, against 1.0x to 1.8x idle (1.8x cold). {@link #interleaved}
 * measures the ratio under the same load for both: each invocation makes both calls back to back,
 * alternating which goes first, times each, and reports per iteration Resolve's median over the
 * no-op's median ({@code resolveOverNoop}) and both medians, as secondary metrics ({@link Pairs}).
 * CI's {@link RatioGate} reads that ratio; the README's serving row keeps the two sequential
 * methods' percentiles. A load adds the same scheduling delay to both calls of a pair, so it pulls
 * the interleaved ratio towards 1x rather than away from it (with two CPU hogs beside it: 0.8x to
 * 1.0x): only an idle machine shows Resolve's full extra cost.
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar ServingFloorBenchmark -f 1 -wi 3 -i 5
 * java -jar benchmarks/target/benchmarks.jar ServingFloorBenchmark.interleaved -f 1 -wi 3 -i 5
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 5)
@Measurement(iterations = 5, time = 5)
@Fork(1)
@Threads(1)
public class ServingFloorBenchmark {

  static final int SERVICES = 10_000;
  static final int ENDPOINTS_PER_SERVICE = 25;

  static final MethodDescriptor<ResolveRequest, ServiceEndpoints> RESOLVE =
      unary("routesync.v1.Registry/Resolve");
  static final MethodDescriptor<ResolveRequest, ServiceEndpoints> NOOP =
      unary(FloorServer.SERVICE + "/Noop");

  /** Vert.x Micrometer metrics, as the agent runs them. */
  @Param({"true"})
  boolean vertxMetrics;

  private Vertx vertx;
  private Path dir;
  private FloorServer server;
  private EpollEventLoopGroup group;
  private ManagedChannel channel;
  private ResolveRequest[] requests;

  private static MethodDescriptor<ResolveRequest, ServiceEndpoints> unary(String fullName) {
    return MethodDescriptor.<ResolveRequest, ServiceEndpoints>newBuilder()
        .setType(MethodDescriptor.MethodType.UNARY)
        .setFullMethodName(fullName)
        .setRequestMarshaller(ProtoUtils.marshaller(ResolveRequest.getDefaultInstance()))
        .setResponseMarshaller(ProtoUtils.marshaller(ServiceEndpoints.getDefaultInstance()))
        .build();
  }

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    VertxOptions options = new VertxOptions().setPreferNativeTransport(true);
    var builder = Vertx.builder();
    if (vertxMetrics) {
      options.setMetricsOptions(new MicrometerMetricsOptions().setEnabled(true));
      builder.withMetrics(new MicrometerMetricsFactory(registry));
    }
    vertx = builder.with(options).build();
    if (!vertx.isNativeTransportEnabled()) {
      throw new IllegalStateException(
          "no native transport", vertx.unavailableNativeTransportCause());
    }
    TableWriter table = new TableWriter(Clock.systemUTC(), RoutingTable.DEFAULT_DELTA_LOG_CAPACITY);
    table.publish(states(Tables.services(SERVICES, ENDPOINTS_PER_SERVICE)), List.of());

    dir = Files.createTempDirectory("routesync-floor");
    server = new FloorServer(vertx, table, new Metrics(registry).serve(), dir.resolve("api.sock"));
    server.listen().await(10, TimeUnit.SECONDS);

    group = new EpollEventLoopGroup(1);
    channel =
        NettyChannelBuilder.forAddress(new DomainSocketAddress(server.socketPath().toString()))
            .eventLoopGroup(group)
            .channelType(EpollDomainSocketChannel.class)
            .overrideAuthority("localhost") // as in earlier runs (the socket takes any authority)
            .usePlaintext()
            .build();

    requests = new ResolveRequest[SERVICES];
    for (int i = 0; i < SERVICES; i++) {
      ServiceKey key = Tables.key(i);
      requests[i] =
          ResolveRequest.newBuilder().setNamespace(key.namespace()).setName(key.name()).build();
    }

    // Both methods answer what they should, before anything is measured.
    ServiceEndpoints resolved = call(RESOLVE, requests[SERVICES / 2]);
    if (resolved.getEndpointsCount() != ENDPOINTS_PER_SERVICE) {
      throw new IllegalStateException("Resolve answered " + resolved);
    }
    ServiceEndpoints empty = call(NOOP, requests[SERVICES / 2]);
    if (!empty.equals(ServiceEndpoints.getDefaultInstance())) {
      throw new IllegalStateException("Noop answered " + empty);
    }
    System.out.printf(
        "%nResolve answer: %d bytes for %d endpoints%n",
        resolved.getSerializedSize(), resolved.getEndpointsCount());
  }

  private ServiceEndpoints call(
      MethodDescriptor<ResolveRequest, ServiceEndpoints> method, ResolveRequest request) {
    return ClientCalls.blockingUnaryCall(
        channel, method, CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), request);
  }

  private ResolveRequest anyService() {
    return requests[ThreadLocalRandom.current().nextInt(SERVICES)];
  }

  @Benchmark
  public ServiceEndpoints resolve() {
    return call(RESOLVE, anyService());
  }

  @Benchmark
  public ServiceEndpoints noop() {
    return call(NOOP, anyService());
  }

  /**
   * Resolve and the no-op back to back on the same channel, for the same service, each timed on its
   * own; the order alternates from one invocation to the next, so neither call always runs in the
   * other's wake (warm caches, event loops not yet parked). {@link Pairs} turns the times into one
   * ratio per iteration. JMH's own figure for this method is the pair's time.
   */
  @Benchmark
  public void interleaved(Pairs pairs, Blackhole blackhole) {
    ResolveRequest request = anyService();
    boolean resolveFirst = pairs.resolveFirst;
    pairs.resolveFirst = !resolveFirst;
    if (resolveFirst) {
      blackhole.consume(timed(RESOLVE, request, pairs.resolveNanos));
      blackhole.consume(timed(NOOP, request, pairs.noopNanos));
    } else {
      blackhole.consume(timed(NOOP, request, pairs.noopNanos));
      blackhole.consume(timed(RESOLVE, request, pairs.resolveNanos));
    }
  }

  private ServiceEndpoints timed(
      MethodDescriptor<ResolveRequest, ServiceEndpoints> method,
      ResolveRequest request,
      LatencySamples samples) {
    long start = System.nanoTime();
    ServiceEndpoints answer = call(method, request);
    samples.add(System.nanoTime() - start);
    return answer;
  }

  /**
   * The {@link #interleaved} method's figures, one set per iteration, as JMH secondary metrics (in
   * the console after each iteration and in the JSON's {@code secondaryMetrics}). JMH adds up
   * {@code EVENTS} counters over the iterations for their {@code score}, so read a run's figure
   * from their {@code scorePercentiles} (the {@code 50.0} one is the median over iterations) or
   * {@code rawData} (one value per iteration), not from {@code score}.
   */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.EVENTS)
  public static class Pairs {
    /** Resolve's median over the no-op's median, this iteration. */
    public double resolveOverNoop;

    public double resolveP50Micros;
    public double noopP50Micros;
    public long pairs;

    // Not public: JMH reads public fields as counters. A 5 s iteration makes ~15,000 pairs idle.
    final LatencySamples resolveNanos = new LatencySamples(1 << 15);
    final LatencySamples noopNanos = new LatencySamples(1 << 15);
    boolean resolveFirst = true;

    @Setup(Level.Iteration)
    public void clear() {
      resolveNanos.clear();
      noopNanos.clear();
    }

    @TearDown(Level.Iteration)
    public void summarize() {
      // An iteration without a pair (a call that hung until its deadline) reports no ratio at all:
      // the benchmark fails and the gate finds its figure missing, rather than reading a 0.
      double resolve = resolveNanos.medianNanos();
      double noop = noopNanos.medianNanos();
      resolveOverNoop = resolve / noop;
      resolveP50Micros = resolve / 1_000;
      noopP50Micros = noop / 1_000;
      pairs = Math.min(resolveNanos.count(), noopNanos.count());
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() throws Exception {
    channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
    server.close().await(10, TimeUnit.SECONDS);
    vertx.close().await(10, TimeUnit.SECONDS);
    try (var files = Files.list(dir)) {
      for (Path file : files.toList()) {
        Files.deleteIfExists(file);
      }
    }
    Files.deleteIfExists(dir);
  }
}
