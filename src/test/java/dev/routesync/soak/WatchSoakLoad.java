package dev.routesync.soak;

import dev.routesync.api.v1.WatchEvent;
import dev.routesync.api.v1.WatchRequest;
import dev.routesync.testing.GrpcJavaClient;
import dev.routesync.testing.Kubeconfigs;
import dev.routesync.testing.MockCluster;
import dev.routesync.testing.Slices;
import dev.routesync.testing.Slices.Conditions;
import dev.routesync.testing.Slices.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The load side of {@code scripts/soak-memory.sh}, in its own process outside the agent's cgroup:
 * the API server (fabric8's CRUD mock, seeded with {@code --services} mesh-managed Services of
 * {@code --endpoints} endpoints each, and churned: one slice rewritten every {@code --churn-every}
 * ms) and {@code --connections} sidecars, each with its own Unix-socket connection (its own
 * grpc-java channel) and one Watch of everything, as real sidecars hold them.
 *
 * <p>Phases, so the script can start the agent in between: it writes a kubeconfig for the mock to
 * {@code --kubeconfig-out}, waits for {@code --socket} to appear, opens every Watch at once (what a
 * restarted agent sees: every sidecar reconnecting), churns for {@code --duration}, drops and
 * reopens every connection once halfway through (a second storm), and ends. It prints one status
 * line every 10 s and a final {@code soak-load: RESULT} line; exit 0 only when every stream got its
 * snapshot after each storm and no stream failed while the agent was up.
 *
 * <p>Not a test: a main class in the test tree so that it compiles with the build and uses the
 * tests' mock and grpc-java client setup. Bounded: every stream has a deadline past the run's end.
 */
public final class WatchSoakLoad {

  private static final String NAMESPACE = "soak";

  private final Options options;
  private final MockCluster cluster = new MockCluster();
  private final Random random = new Random(42);
  private final List<List<Pod>> pods = new ArrayList<>();
  private final AtomicLong events = new AtomicLong();
  private final AtomicLong churned = new AtomicLong();
  private final AtomicInteger failures = new AtomicInteger();
  private final AtomicInteger withSnapshot = new AtomicInteger();
  private volatile String firstFailure = "";
  private EpollEventLoopGroup group;
  private List<ManagedChannel> channels = List.of();
  // Set when this process closes the current connections: their streams' errors are its own.
  private volatile AtomicBoolean closedByUs = new AtomicBoolean();

  private WatchSoakLoad(Options options) {
    this.options = options;
  }

  /** The command line: {@code --name value} pairs, each with a default. */
  record Options(
      Path socket,
      Path kubeconfigOut,
      int connections,
      int services,
      int endpoints,
      long churnEveryMillis,
      Duration duration,
      boolean midRunStorm) {

    static Options parse(String[] args) {
      Map<String, String> values = new LinkedHashMap<>();
      for (int i = 0; i + 1 < args.length; i += 2) {
        if (!args[i].startsWith("--")) {
          throw new IllegalArgumentException("expected --name value, got " + args[i]);
        }
        values.put(args[i].substring(2), args[i + 1]);
      }
      if (!values.containsKey("socket") || !values.containsKey("kubeconfig-out")) {
        throw new IllegalArgumentException("--socket and --kubeconfig-out are required");
      }
      return new Options(
          Path.of(values.remove("socket")),
          Path.of(values.remove("kubeconfig-out")),
          Integer.parseInt(values.getOrDefault("connections", "1000")),
          Integer.parseInt(values.getOrDefault("services", "100")),
          Integer.parseInt(values.getOrDefault("endpoints", "10")),
          Long.parseLong(values.getOrDefault("churn-every", "50")),
          Duration.ofSeconds(Long.parseLong(values.getOrDefault("duration", "180"))),
          Boolean.parseBoolean(values.getOrDefault("storm", "true")));
    }
  }

  // The mock logs every request at INFO; held strongly, or the level is forgotten.
  private static final java.util.logging.Logger MOCK_LOG =
      java.util.logging.Logger.getLogger("io.fabric8.mockwebserver");

  public static void main(String[] args) throws Exception {
    MOCK_LOG.setLevel(java.util.logging.Level.WARNING);
    Options options = Options.parse(args);
    WatchSoakLoad load = new WatchSoakLoad(options);
    int code;
    try {
      code = load.run();
    } finally {
      load.cluster.close();
    }
    System.out.flush();
    // The mock's and grpc-java's non-daemon threads must not keep the script waiting.
    System.exit(code);
  }

  private int run() throws Exception {
    seed();
    writeKubeconfig();
    log(
        "cluster seeded: %d Services x %d endpoints at %s; waiting for %s",
        options.services(), options.endpoints(), cluster.url(), options.socket());
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    while (!Files.exists(options.socket())) {
      if (System.nanoTime() > deadline) {
        log("RESULT FAIL: the agent's socket %s never appeared", options.socket());
        return 1;
      }
      Thread.sleep(200);
    }
    group = new EpollEventLoopGroup(2);
    ScheduledExecutorService churn =
        Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "soak-churn"));
    boolean ok = storm("initial");
    churn.scheduleWithFixedDelay(
        this::churnOne, options.churnEveryMillis(), options.churnEveryMillis(), MILLIS);
    long start = System.nanoTime();
    long end = start + options.duration().toNanos();
    boolean stormed = !options.midRunStorm();
    long nextStatus = start;
    while (System.nanoTime() < end) {
      if (!stormed && System.nanoTime() > start + options.duration().toNanos() / 2) {
        stormed = true;
        closeChannels();
        ok &= storm("mid-run");
      }
      if (System.nanoTime() >= nextStatus) {
        status();
        nextStatus += TimeUnit.SECONDS.toNanos(10);
      }
      Thread.sleep(250);
    }
    churn.shutdownNow();
    status();
    boolean clean = failures.get() == 0;
    log(
        "RESULT %s: %d connections, %d events received, %d slice writes, %d stream failures%s",
        ok && clean ? "PASS" : "FAIL",
        options.connections(),
        events.get(),
        churned.get(),
        failures.get(),
        clean ? "" : " (first: " + firstFailure + ")");
    closeChannels();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
    return ok && clean ? 0 : 1;
  }

  /** Opens every connection and its Watch at once; true when each got its snapshot in time. */
  private boolean storm(String which) throws InterruptedException {
    withSnapshot.set(0);
    AtomicBoolean generation = new AtomicBoolean();
    closedByUs = generation;
    long began = System.nanoTime();
    List<ManagedChannel> opened = new ArrayList<>(options.connections());
    long streamDeadline = options.duration().plusMinutes(5).toMillis();
    for (int i = 0; i < options.connections(); i++) {
      ManagedChannel channel =
          NettyChannelBuilder.forAddress(new DomainSocketAddress(options.socket().toString()))
              .eventLoopGroup(group)
              .channelType(EpollDomainSocketChannel.class)
              .usePlaintext()
              .directExecutor()
              .build();
      opened.add(channel);
      ClientCalls.asyncServerStreamingCall(
          channel.newCall(
              GrpcJavaClient.WATCH, CallOptions.DEFAULT.withDeadlineAfter(streamDeadline, MILLIS)),
          WatchRequest.getDefaultInstance(),
          new Counter(generation));
    }
    channels = opened;
    long deadline = began + TimeUnit.SECONDS.toNanos(60);
    while (withSnapshot.get() < options.connections() && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began);
    boolean all = withSnapshot.get() == options.connections();
    log(
        "%s storm: %d of %d streams had their snapshot after %d ms",
        which, withSnapshot.get(), options.connections(), millis);
    return all;
  }

  private void closeChannels() throws InterruptedException {
    List<ManagedChannel> closing = channels;
    channels = List.of();
    closedByUs.set(true);
    closing.forEach(ManagedChannel::shutdownNow);
    for (ManagedChannel channel : closing) {
      channel.awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  /** One sidecar's stream: counts messages; any end but our own cancel is a failure. */
  private final class Counter implements StreamObserver<WatchEvent> {
    private final AtomicBoolean closedByUs;
    private boolean first = true;

    Counter(AtomicBoolean closedByUs) {
      this.closedByUs = closedByUs;
    }

    @Override
    public void onNext(WatchEvent event) {
      events.incrementAndGet();
      if (first) {
        first = false;
        withSnapshot.incrementAndGet();
      }
    }

    @Override
    public void onError(Throwable error) {
      if (!closedByUs.get() && failures.getAndIncrement() == 0) {
        firstFailure = error.toString();
      }
    }

    @Override
    public void onCompleted() {
      if (!closedByUs.get() && failures.getAndIncrement() == 0) {
        firstFailure = "stream completed by the agent";
      }
    }
  }

  private void seed() {
    var client = cluster.client();
    for (int s = 0; s < options.services(); s++) {
      client.resource(service("svc-" + s)).createOr(NonDeletingOperation::update);
      List<Pod> list = new ArrayList<>();
      for (int e = 0; e < options.endpoints(); e++) {
        list.add(
            new Pod(
                "svc-" + s + "-pod-" + e,
                "10." + (s / 250) + "." + (s % 250) + "." + (e + 1),
                "node-" + (e % 20),
                "zone-" + (e % 3),
                Conditions.READY));
      }
      pods.add(list);
      cluster.apply(slice(s));
    }
  }

  /** One readiness flip in one random Service's slice: a version with one changed Service. */
  private void churnOne() {
    try {
      int s = random.nextInt(pods.size());
      List<Pod> list = pods.get(s);
      int e = random.nextInt(list.size());
      Pod pod = list.get(e);
      list.set(
          e,
          pod.with(pod.conditions() == Conditions.READY ? Conditions.NOT_READY : Conditions.READY));
      cluster.apply(slice(s));
      churned.incrementAndGet();
    } catch (RuntimeException e) {
      log("churn write failed: %s", e);
    }
  }

  private io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice slice(int s) {
    return Slices.slice(NAMESPACE, "svc-" + s + "-x1", "svc-" + s, true, 8080, pods.get(s));
  }

  private static Service service(String name) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace(NAMESPACE)
        .withName(name)
        .addToLabels(Slices.MESH_LABEL, "true")
        .endMetadata()
        .withNewSpec()
        .addToSelector("app", name)
        .addNewPort()
        .withName("http")
        .withPort(80)
        .withNewTargetPort(8080)
        .withProtocol("TCP")
        .endPort()
        .endSpec()
        .build();
  }

  private void writeKubeconfig() throws IOException {
    String kubeconfig = Kubeconfigs.withToken("soak", cluster.url(), "soak");
    Path tmp = options.kubeconfigOut().resolveSibling(options.kubeconfigOut().getFileName() + ".t");
    Files.writeString(tmp, kubeconfig);
    Files.move(tmp, options.kubeconfigOut(), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
  }

  private void status() {
    log(
        "status: %d streams open with a snapshot, %d events, %d slice writes, %d failures",
        withSnapshot.get(), events.get(), churned.get(), failures.get());
  }

  private static Thread daemon(Runnable runnable, String name) {
    Thread thread = new Thread(runnable, name);
    thread.setDaemon(true);
    return thread;
  }

  private static final TimeUnit MILLIS = TimeUnit.MILLISECONDS;

  private static void log(String format, Object... args) {
    System.out.println("soak-load: " + String.format(format, args));
    System.out.flush();
  }
}
