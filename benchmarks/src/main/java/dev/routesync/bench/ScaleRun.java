package dev.routesync.bench;

import dev.routesync.testing.MockCluster;
import dev.routesync.testing.TcpProxy;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Cold start and relist at cluster scale, whole process: fabric8's CRUD mock in this JVM (made to
 * page lists as a real API server does, {@code PagedLists}) holding N mesh-managed Services with
 * one EndpointSlice of 25 endpoints each (realistic names, as in {@link MemoryBenchmark}), and the
 * agent jar started as a child process with {@code -Xmx256m} (or {@code --xmx}). Measures:
 *
 * <ul>
 *   <li>time to ready: from the child's start to {@code /readyz} answering 200;
 *   <li>heap after a full GC once ready ({@code jcmd <pid> GC.run}, then {@code GC.heap_info}), and
 *       the peak heap: the largest heap-before-GC in the child's {@code -Xlog:gc} log;
 *   <li>a forced relist: the API server's connection is cut for longer than {@code --relist-after
 *       1s} and restored, so both watches list afresh beside their served state; the table versions
 *       it published (the {@code routesync_table_version} gauge: must not move) and the bytes it
 *       allocated (the GC log's heap growth between the GCs that bracket it, from one {@code
 *       GC.run} before to one after).
 * </ul>
 *
 * Run a baseline ({@code --services 0}) to subtract what an empty agent holds. Takes about a minute
 * at 10k, mostly populating the mock (~500 writes/s here); 3-4 minutes at 40k. Smoke: {@code
 * --services 500}.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.routesync.bench.ScaleRun \
 *     --jar target/routesync.jar --services 10000 [--xmx 256m]
 * </pre>
 *
 * Or {@code benchmarks/scale-run.sh}, which builds what is missing and runs the 10k and 40k sizes
 * and the baseline.
 */
public final class ScaleRun {

  private static final int ENDPOINTS = 25;
  private static final int NAMESPACES = 50;
  private static final Pattern GC_LINE =
      Pattern.compile("GC\\((\\d+)\\).*?(\\d+)M->(\\d+)M\\((\\d+)M\\)");
  private static final Pattern HEAP_USED = Pattern.compile("used (\\d+)K");

  private ScaleRun() {}

  public static void main(String[] args) throws Exception {
    int services = 10_000;
    String xmx = "256m";
    List<Path> jars = List.of(Path.of("target/routesync.jar"));
    for (int i = 0; i < args.length; i += 2) {
      switch (args[i]) {
        case "--services" -> services = Integer.parseInt(args[i + 1]);
        case "--xmx" -> xmx = args[i + 1];
        case "--jar" ->
            jars = java.util.Arrays.stream(args[i + 1].split(",")).map(Path::of).toList();
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    Path dir = Files.createTempDirectory("scale-run");
    try (MockCluster cluster = new MockCluster().withFaithfulWatchResume();
        TcpProxy proxy = new TcpProxy(cluster.port())) {
      long populateStart = System.nanoTime();
      populate(cluster.client(), services);
      System.out.printf(
          Locale.ROOT,
          "populated %d Services x %d endpoints in %.1f s%n",
          services,
          ENDPOINTS,
          (System.nanoTime() - populateStart) / 1e9);
      // Several jars (before and after a change) against the same populated mock, one at a time.
      for (Path jar : jars) {
        System.out.println("agent " + jar);
        try {
          run(jar, xmx, services, Files.createTempDirectory(dir, "run"), proxy, cluster.port());
        } catch (IllegalStateException e) {
          // An agent that cannot start in -Xmx (the point of the run) is a result, not the end.
          System.out.println(
              "RESULT services=" + services + " xmx=" + xmx + " FAILED: " + e.getMessage());
        }
      }
    }
  }

  private static void run(Path jar, String xmx, int services, Path dir, TcpProxy proxy, int apiPort)
      throws Exception {
    Path kubeconfig = dir.resolve("kubeconfig");
    Files.writeString(kubeconfig, kubeconfig("http://127.0.0.1:" + proxy.port()));
    int admin = freePort();
    Path gcLog = dir.resolve("gc.log");
    Path log = dir.resolve("agent.log");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process agent =
        new ProcessBuilder(
                java,
                "-Xmx" + xmx,
                "-XX:+ExitOnOutOfMemoryError",
                "-Xlog:gc:file=" + gcLog,
                "-jar",
                jar.toString(),
                "agent",
                "--kubeconfig",
                kubeconfig.toString(),
                "--socket",
                dir.resolve("rs.sock").toString(),
                "--admin-port",
                Integer.toString(admin),
                "--state-file",
                "",
                "--relist-after",
                "1s")
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    HttpClient http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2))
            .build();
    try {
      long start = System.nanoTime();
      long deadline = start + TimeUnit.MINUTES.toNanos(10);
      while (status(http, admin, "/readyz") != 200) {
        if (!agent.isAlive()) {
          throw new IllegalStateException(
              "the agent exited (" + agent.exitValue() + "); its log: " + log + "\n" + tail(log));
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("not ready within 10 minutes; log: " + log);
        }
        Thread.sleep(100);
      }
      double ready = (System.nanoTime() - start) / 1e9;
      long pid = agent.pid();
      long heapAfterGc = heapAfterGc(pid);
      long peak = peakBeforeGcMb(gcLog);
      double version = metric(http, admin, "routesync_table_version");
      System.out.printf(
          Locale.ROOT,
          "ready in %.1f s; heap after GC %.1f MiB; peak heap %d MiB (-Xmx%s); table version %.0f%n",
          ready,
          heapAfterGc / 1048576.0,
          peak,
          xmx,
          version);

      // The relist: cut longer than --relist-after, restore, wait until both watches listed.
      double relistsBefore = metric(http, admin, "routesync_relists_total");
      int gcsBefore = lastGc(gcLog);
      proxy.cut();
      Thread.sleep(2_500);
      proxy.restore(apiPort);
      long relistStart = System.nanoTime();
      while (metric(http, admin, "routesync_relists_total") < relistsBefore + 2
          || metric(http, admin, "routesync_api_connected") < 1) {
        if (System.nanoTime() - relistStart > TimeUnit.MINUTES.toNanos(5)) {
          throw new IllegalStateException("no relist within 5 minutes; log: " + log);
        }
        Thread.sleep(200);
      }
      // Settled: the relist's flush has run once the table is not stale any more.
      Thread.sleep(3_000);
      double relistSeconds = (System.nanoTime() - relistStart) / 1e9;
      long heapAfterRelist = heapAfterGc(pid);
      long allocated = allocatedMbSince(gcLog, gcsBefore);
      double versionAfter = metric(http, admin, "routesync_table_version");
      System.out.printf(
          Locale.ROOT,
          "relist: %.1f s; versions published %.0f; allocated ~%d MiB; heap after GC %.1f MiB;"
              + " peak heap %d MiB%n",
          relistSeconds,
          versionAfter - version,
          allocated,
          heapAfterRelist / 1048576.0,
          peakBeforeGcMb(gcLog));
      System.out.printf(
          Locale.ROOT,
          "RESULT services=%d endpoints=%d xmx=%s ready_s=%.1f heap_after_gc_mib=%.1f"
              + " peak_mib=%d relist_versions=%.0f relist_alloc_mib=%d%n",
          services,
          services * ENDPOINTS,
          xmx,
          ready,
          heapAfterGc / 1048576.0,
          peakBeforeGcMb(gcLog),
          versionAfter - version,
          allocated);
    } finally {
      agent.destroy();
      if (!agent.waitFor(20, TimeUnit.SECONDS)) {
        agent.destroyForcibly();
      }
    }
  }

  /** N Services with one slice each, written by a few writers (the mock takes ~500 writes/s). */
  static void populate(KubernetesClient client, int services) throws Exception {
    Random random = new Random(42);
    String[] nodes = new String[50];
    for (int n = 0; n < nodes.length; n++) {
      nodes[n] = String.format(Locale.ROOT, "gke-prod-default-pool-%08x-abcd", random.nextInt());
    }
    ExecutorService writers = Executors.newFixedThreadPool(4);
    List<Future<?>> done = new ArrayList<>();
    int address = 0;
    for (int s = 0; s < services; s++) {
      String namespace = "team-" + s % NAMESPACES;
      String name = "svc-" + s;
      EndpointSliceBuilder slice =
          new EndpointSliceBuilder()
              .withNewMetadata()
              .withNamespace(namespace)
              .withName(name + "-" + hash(random, 5))
              .addToLabels("kubernetes.io/service-name", name)
              .addToLabels("mesh-managed", "true")
              .addToAnnotations(
                  "endpoints.kubernetes.io/last-change-trigger-time", "2026-01-01T00:00:00Z")
              .endMetadata()
              .withAddressType("IPv4")
              .addNewPort()
              .withName("http")
              .withPort(8080)
              .withProtocol("TCP")
              .endPort();
      String replicaSet = name + "-" + hash(random, 10) + "-";
      for (int e = 0; e < ENDPOINTS; e++) {
        int host = (address++ * 0x9E3B) & 0xFFFFF;
        String ip = "10." + (64 + (host >> 16)) + "." + ((host >> 8) & 255) + "." + (host & 255);
        int node = random.nextInt(nodes.length);
        slice.addToEndpoints(
            new EndpointBuilder()
                .withAddresses(ip)
                .withZone("zone-" + (char) ('a' + node % 3))
                .withNodeName(nodes[node])
                .withNewTargetRef()
                .withKind("Pod")
                .withNamespace(namespace)
                .withName(replicaSet + hash(random, 5))
                .endTargetRef()
                .withNewConditions()
                .withReady(true)
                .withServing(true)
                .withTerminating(false)
                .endConditions()
                .build());
      }
      EndpointSlice built = slice.build();
      io.fabric8.kubernetes.api.model.Service service =
          new ServiceBuilder()
              .withNewMetadata()
              .withNamespace(namespace)
              .withName(name)
              .addToLabels("mesh-managed", "true")
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
      done.add(
          writers.submit(
              () -> {
                client.resource(service).create();
                client.resource(built).create();
              }));
    }
    for (Future<?> write : done) {
      write.get(5, TimeUnit.MINUTES);
    }
    writers.shutdown();
  }

  private static String hash(Random random, int length) {
    String alphabet = "bcdfghjklmnpqrstvwxz2456789";
    StringBuilder out = new StringBuilder(length);
    for (int i = 0; i < length; i++) {
      out.append(alphabet.charAt(random.nextInt(alphabet.length())));
    }
    return out.toString();
  }

  private static long heapAfterGc(long pid) throws Exception {
    // Twice: the first full GC can leave what finalisation or a reference queue frees later.
    jcmd(pid, "GC.run");
    Thread.sleep(1_000);
    jcmd(pid, "GC.run");
    String info = jcmd(pid, "GC.heap_info");
    Matcher used = HEAP_USED.matcher(info);
    if (!used.find()) {
      throw new IllegalStateException("no heap figure in: " + info);
    }
    return Long.parseLong(used.group(1)) * 1024;
  }

  private static String jcmd(long pid, String command) throws Exception {
    Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    Process process =
        new ProcessBuilder(jcmd.toString(), Long.toString(pid), command)
            .redirectErrorStream(true)
            .start();
    String out = new String(process.getInputStream().readAllBytes());
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new IllegalStateException("jcmd " + command + " timed out");
    }
    return out;
  }

  /** The largest heap occupancy before a GC: the peak the heap reached. */
  private static long peakBeforeGcMb(Path gcLog) throws IOException {
    long peak = 0;
    for (String line : Files.readAllLines(gcLog)) {
      Matcher m = GC_LINE.matcher(line);
      if (m.find()) {
        peak = Math.max(peak, Long.parseLong(m.group(2)));
      }
    }
    return peak;
  }

  private static int lastGc(Path gcLog) throws IOException {
    int last = -1;
    for (String line : Files.readAllLines(gcLog)) {
      Matcher m = GC_LINE.matcher(line);
      if (m.find()) {
        last = Integer.parseInt(m.group(1));
      }
    }
    return last;
  }

  /**
   * Bytes allocated after GC {@code since}: each later GC's heap before it minus the heap after the
   * one before (the log's M granularity: ~1 MiB per GC).
   */
  private static long allocatedMbSince(Path gcLog, int since) throws IOException {
    long allocated = 0;
    long previousAfter = -1;
    for (String line : Files.readAllLines(gcLog)) {
      Matcher m = GC_LINE.matcher(line);
      if (!m.find()) {
        continue;
      }
      int id = Integer.parseInt(m.group(1));
      long before = Long.parseLong(m.group(2));
      long after = Long.parseLong(m.group(3));
      if (id > since && previousAfter >= 0) {
        allocated += Math.max(0, before - previousAfter);
      }
      previousAfter = after;
    }
    return allocated;
  }

  private static int status(HttpClient http, int port, String path) {
    try {
      return http.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                  .timeout(Duration.ofSeconds(5))
                  .build(),
              HttpResponse.BodyHandlers.discarding())
          .statusCode();
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  /** The sum of a Prometheus metric's samples (over its labels). */
  private static double metric(HttpClient http, int port, String name) throws Exception {
    String body =
        http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                    .timeout(Duration.ofSeconds(10))
                    .build(),
                HttpResponse.BodyHandlers.ofString())
            .body();
    double sum = 0;
    for (String line : body.split("\n")) {
      if (line.startsWith(name + " ") || line.startsWith(name + "{")) {
        sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return sum;
  }

  private static String tail(Path log) throws IOException {
    List<String> lines = Files.readAllLines(log);
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  private static String kubeconfig(String server) {
    return String.join(
        "\n",
        "apiVersion: v1",
        "kind: Config",
        "clusters:",
        "- name: scale",
        "  cluster:",
        "    server: " + server,
        "users:",
        "- name: scale",
        "  user:",
        "    token: scale",
        "contexts:",
        "- name: scale",
        "  context:",
        "    cluster: scale",
        "    user: scale",
        "current-context: scale",
        "");
  }
}
