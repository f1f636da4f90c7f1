package dev.routesync.xds;

import dev.routesync.bench.Tables;
import dev.routesync.observe.Metrics;
import dev.routesync.table.Port;
import dev.routesync.table.RoutingTable;
import dev.routesync.table.ServiceKey;
import dev.routesync.table.ServiceState;
import dev.routesync.table.TableTrust;
import dev.routesync.table.TableWriter;
import io.envoyproxy.envoy.config.core.v3.Node;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryResponse;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.grpc.common.GrpcMessageEncoder;
import io.vertx.grpc.common.WireFormat;
import io.vertx.grpc.server.GrpcServerResponse;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.Proxy;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * The cost of pushing one changed Service to {@code streams} state-of-the-world ADS streams, with
 * the shared encoding cache ({@code cache=shared}, what the agent runs) against without it ({@code
 * perStream}: every stream encodes its own {@code ClusterLoadAssignment}, {@link
 * PerStreamAssignments}, this module's baseline).
 *
 * <p>One operation is one push, as the agent does it: publish a new version of one Service (two
 * endpoint generations, alternating, so every publish is a real change) into a table of {@code
 * services} Services; {@code AssignmentCache.published}; wake every stream, which on its event loop
 * runs {@code SotwStream.flushAssignments} (the changed Services from the table's delta log, {@code
 * AssignmentCache.assignment}), builds the {@code DiscoveryResponse} and hands it to its response,
 * whose write encodes it to bytes with the same encoder as vertx-grpc ({@link
 * GrpcMessageEncoder#encoder()}); then each stream gets its client's ACK (which the protocol needs
 * before the next push: the ACK's handling is in the cost, the same in both modes, so {@code
 * perStream - shared} is what sharing saves). The xDS meters are the agent's (Prometheus registry).
 *
 * <p>No network: each stream's {@code Context} runs its tasks at once on the benchmark thread and
 * its response is a stand-in that encodes and drops the bytes, so this measures the agent's work,
 * not the sockets'. Every stream follows {@code names} EDS clusters, the changed Service's among
 * them, so each push is one assignment per stream; setup and teardown check that it is.
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar 'XdsPushBenchmark.push' -prof gc
 * java -jar benchmarks/target/benchmarks.jar 'XdsPushBenchmark.ack' -p cache=shared -p endpoints=5 -prof gc
 * </pre>
 *
 * <p>{@code push:cpuMicros} is the thread's CPU time per push (see {@link Cpu}).
 *
 * <p>In the package of the classes it drives ({@code dev.routesync.xds}, package-private): the
 * benchmark jar puts both on one class path, so no production class is public for it.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
// A long warmup: on 2 shared cores C2 takes over 10 s to settle this much protobuf code.
@Warmup(iterations = 8, time = 2)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class XdsPushBenchmark {

  @Param({"10", "100", "1000"})
  int streams;

  @Param({"shared", "perStream"})
  String cache;

  /** Endpoints of the changed Service (and of every other). */
  @Param({"5", "50"})
  int endpoints;

  /** Services in the table. */
  @Param({"1000"})
  int services;

  /** EDS clusters each stream follows: the changed Service's and others. */
  @Param({"10"})
  int names;

  private static final List<Port> SERVICE_PORTS = List.of(new Port("http", 80, "TCP"));
  private static final ServiceKey CHANGED = Tables.key(0);

  private TableWriter writer;
  private ClusterAssignments assignments;
  private final List<SotwStream> all = new ArrayList<>();
  private final List<Client> clients = new ArrayList<>();
  private final List<Map<ServiceKey, ServiceState>> generations = new ArrayList<>();
  private int next;
  private long pushes;

  /** One stream's client: what its response wrote last, and its next request. */
  private static final class Client {
    final DiscoveryRequest subscription;
    String lastNonce = "";
    int lastResources;
    long responses;
    long bytes;

    Client(DiscoveryRequest subscription) {
      this.subscription = subscription;
    }

    DiscoveryRequest ack() {
      return subscription.toBuilder().setResponseNonce(lastNonce).build();
    }
  }

  @Setup(Level.Trial)
  public void setUp() {
    writer = new TableWriter(Clock.systemUTC(), RoutingTable.DEFAULT_DELTA_LOG_CAPACITY);
    Map<ServiceKey, ServiceState> table = new HashMap<>();
    for (int s = 0; s < services; s++) {
      table.put(Tables.key(s), new ServiceState(Tables.endpoints(s, endpoints, 0), SERVICE_PORTS));
    }
    writer.publish(table, List.of());
    for (int generation = 1; generation <= 2; generation++) {
      generations.add(
          Map.of(
              CHANGED,
              new ServiceState(Tables.endpoints(0, endpoints, generation), SERVICE_PORTS)));
    }
    assignments = cache.equals("shared") ? new AssignmentCache() : new PerStreamAssignments();
    sameBytesEitherWay();
    XdsSources sources =
        new XdsSources(writer, TableTrust.synced(), assignments, new WildcardClusters());
    XdsObserver observer = new Metrics(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT)).xds();
    NackLog nacks = new NackLog(System::nanoTime);
    Context inline = inlineContext();
    for (int i = 0; i < streams; i++) {
      DiscoveryRequest.Builder subscribe =
          DiscoveryRequest.newBuilder()
              .setNode(Node.newBuilder().setId("node-" + i).setUserAgentName("grpc-java"))
              .setTypeUrl(XdsType.ENDPOINT.typeUrl())
              .addResourceNames(cluster(CHANGED));
      for (int n = 1; n < names; n++) {
        subscribe.addResourceNames(cluster(Tables.key(1 + (i * (names - 1) + n) % (services - 1))));
      }
      Client client = new Client(subscribe.build());
      SotwStream stream =
          new SotwStream(inline, response(client), sources, observer, nacks, closed -> {});
      stream.onRequest(client.subscription); // the first answer: every name
      check(client, names);
      stream.onRequest(client.ack());
      all.add(stream);
      clients.add(client);
    }
    pushOnce();
    for (Client client : clients) {
      check(client, 1);
    }
  }

  /** The baseline must encode what the agent's cache does, or the comparison means nothing. */
  private void sameBytesEitherWay() {
    String name = cluster(CHANGED);
    Optional<XdsTarget> target = XdsNames.parse(name);
    RoutingTable current = writer.current();
    if (!new PerStreamAssignments()
        .assignment(name, target, current)
        .equals(new AssignmentCache().assignment(name, target, current))) {
      throw new IllegalStateException("the per-stream baseline encodes " + name + " differently");
    }
  }

  private static String cluster(ServiceKey key) {
    return key.name() + "." + key.namespace() + ".svc.cluster.local:80";
  }

  private static void check(Client client, int resources) {
    if (client.lastResources != resources) {
      throw new IllegalStateException(
          "a response carried " + client.lastResources + " assignments, not " + resources);
    }
  }

  /**
   * CPU time of the benchmark thread per operation, beside the wall time: on a shared machine the
   * wall time also counts waiting for a core, this does not.
   */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.EVENTS)
  public static class Cpu {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private long nanos;
    private long ops;

    @Setup(Level.Iteration)
    public void reset() {
      nanos = 0;
      ops = 0;
    }

    long start() {
      return THREADS.getCurrentThreadCpuTime();
    }

    void stop(long start) {
      nanos += THREADS.getCurrentThreadCpuTime() - start;
      ops++;
    }

    /** Microseconds of CPU per operation in this iteration. */
    public double cpuMicros() {
      return ops == 0 ? 0 : nanos / 1e3 / ops;
    }
  }

  @Benchmark
  public long push(Cpu cpu) {
    long start = cpu.start();
    long version = pushOnce();
    cpu.stop(start);
    return version;
  }

  /**
   * The control: only the ACKs of a push, every stream handling its client's ACK again (nothing to
   * send), so {@code push - ack} is the push's own work. The cache plays no part in it.
   */
  @Benchmark
  public int ack(Cpu cpu) {
    long start = cpu.start();
    for (int i = 0; i < all.size(); i++) {
      all.get(i).onRequest(clients.get(i).ack());
    }
    cpu.stop(start);
    return all.size();
  }

  private long pushOnce() {
    RoutingTable table = writer.publish(generations.get(next), List.of());
    next ^= 1;
    // XdsServer.published: the cache first, then every stream nudged (StreamHub.wakeAll).
    assignments.published(table);
    for (SotwStream stream : all) {
      stream.nudge();
    }
    for (int i = 0; i < all.size(); i++) {
      all.get(i).onRequest(clients.get(i).ack());
    }
    pushes++;
    return table.version();
  }

  @TearDown(Level.Trial)
  public void everyPushReachedEveryStream() {
    for (Client client : clients) {
      // The first answer, then one response per push.
      if (client.responses != 1 + pushes || client.lastResources != 1) {
        throw new IllegalStateException(
            client.responses + " responses on a stream, for " + pushes + " pushes");
      }
    }
  }

  /** A context that runs what it is given at once, on the caller's thread. */
  private static Context inlineContext() {
    return (Context)
        Proxy.newProxyInstance(
            Context.class.getClassLoader(),
            new Class<?>[] {Context.class},
            (proxy, method, args) -> {
              if (method.getName().equals("runOnContext")) {
                @SuppressWarnings("unchecked")
                Handler<Void> task = (Handler<Void>) args[0];
                task.handle(null);
                return null;
              }
              throw new UnsupportedOperationException(method.getName());
            });
  }

  /**
   * A response that encodes each message as vertx-grpc's writer does (or takes the bytes a stream
   * assembled), keeps what the client needs to ACK it, and drops the bytes; its write queue is
   * never full. Reading the assembled bytes back costs a parse the agent does not pay.
   */
  @SuppressWarnings("unchecked")
  private static GrpcServerResponse<DiscoveryRequest, DiscoveryResponse> response(Client client) {
    GrpcMessageEncoder<DiscoveryResponse> encoder = GrpcMessageEncoder.encoder();
    return (GrpcServerResponse<DiscoveryRequest, DiscoveryResponse>)
        Proxy.newProxyInstance(
            GrpcServerResponse.class.getClassLoader(),
            new Class<?>[] {GrpcServerResponse.class},
            (proxy, method, args) ->
                switch (method.getName()) {
                  case "write" -> {
                    DiscoveryResponse message = (DiscoveryResponse) args[0];
                    client.bytes += encoder.encode(message, WireFormat.PROTOBUF).payload().length();
                    client.lastNonce = message.getNonce();
                    client.lastResources = message.getResourcesCount();
                    client.responses++;
                    yield Future.succeededFuture();
                  }
                  case "writeMessage" -> {
                    // The streams write the bytes they assembled (SotwStream, ResponseBytes).
                    io.vertx.grpc.common.GrpcMessage raw =
                        (io.vertx.grpc.common.GrpcMessage) args[0];
                    DiscoveryResponse message =
                        DiscoveryResponse.parseFrom(raw.payload().getBytes());
                    client.bytes += raw.payload().length();
                    client.lastNonce = message.getNonce();
                    client.lastResources = message.getResourcesCount();
                    client.responses++;
                    yield Future.succeededFuture();
                  }
                  case "writeQueueFull" -> false;
                  default -> throw new UnsupportedOperationException(method.getName());
                });
  }
}
