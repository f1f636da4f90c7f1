package dev.routesync.bench;

import dev.routesync.testing.MockCluster;
import dev.routesync.testing.TcpProxy;
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
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Cold start and relist at cluster scale, whole process: fabric8's CRUD mock in this JVM (made to
 * page lists as a real API server does, {@code PagedLists}) holding N mesh-managed Services with
 * one EndpointSlice of 25 endpoints each, and this node's 110 pods ({@link ScaleSeed}), and the
 * agent jar started as a child process with {@code -Xmx256m} (or {@code --xmx}) as the DaemonSet
 * runs it: with {@code NODE_NAME} set, so the drift detector is on and watches this node's pods
 * ({@code --no-drift}: without a node name, the detector off, to compare). Measures:
 *
 * <ul>
 *   <li>time to ready: from the child's start to {@code /readyz} answering 200;
 *   <li>heap after a full GC once ready ({@code jcmd <pid> GC.run}, then {@code GC.heap_info}), and
 *       the peak heap: the largest heap-before-GC in the child's {@code -Xlog:gc} log;
 *   <li>a forced relist: the API server's connection is cut for longer than {@code --relist-after
 *       1s} and restored, so both watches list afresh beside their served state; the table versions
 *       it published (the {@code routesync_table_version} gauge: must not move) and the bytes it
 *       allocated (the GC log's heap growth between the GCs that bracket it, from one {@code
 *       GC.run} before to one after);
 *   <li>with the detector on, that it is on and reports no drift on this clean node, at ready and
 *       again after the relist plus the detector's 30 s grace ({@link DriftCheck}): the RESULT line
 *       says {@code drift=on} only then, {@code drift=on-UNEXPECTED} otherwise.
 * </ul>
 *
 * Run a baseline ({@code --services 0}) to subtract what an empty agent holds. The mock is written
 * in bulk ({@link MockCluster#createAll}, O(N)): 40k Services and their slices took 100-137 s wall
 * (~50-60 s of CPU) on the 2 shared cores at load 10, where HTTP ({@code --seed http [--writers
 * N]}, kept to compare; O(N²) in the mock) took 151 s for 2,000. A drift-on run spends 32 s more
 * waiting out the grace. Smoke: {@code --services 500}.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.routesync.bench.ScaleRun \
 *     --jar target/routesync.jar --services 10000 [--xmx 256m] [--no-drift]
 * </pre>
 *
 * Or {@code benchmarks/scale-run.sh}, which builds what is missing and runs the 10k and 40k sizes
 * and the baseline.
 */
public final class ScaleRun {

  private static final int ENDPOINTS = ScaleSeed.ENDPOINTS;
  private static final Pattern GC_LINE =
      Pattern.compile("GC\\((\\d+)\\).*?(\\d+)M->(\\d+)M\\((\\d+)M\\)");
  private static final Pattern HEAP_USED = Pattern.compile("used (\\d+)K");
  // The agent's default --drift-grace (DriftSettings), which the DaemonSet keeps.
  private static final Duration DRIFT_GRACE = Duration.ofSeconds(30);

  private ScaleRun() {}

  public static void main(String[] args) throws Exception {
    int services = 10_000;
    String xmx = "256m";
    List<Path> jars = List.of(Path.of("target/routesync.jar"));
    List<String> agentOptions = new ArrayList<>();
    Path profiler = null;
    boolean drift = true;
    ScaleSeed.Writer writer = ScaleSeed.Writer.BULK;
    int writers = 4;
    for (int i = 0; i < args.length; i += 2) {
      switch (args[i]) {
        case "--agent-opt" -> agentOptions.add(args[i + 1]);
        case "--profile-relist" -> profiler = Path.of(args[i + 1]).toAbsolutePath();
        case "--no-drift" -> {
          drift = false;
          i--; // a flag: no value
        }
        case "--seed" -> writer = ScaleSeed.Writer.valueOf(args[i + 1].toUpperCase(Locale.ROOT));
        case "--writers" -> writers = Integer.parseInt(args[i + 1]);
        case "--services" -> services = Integer.parseInt(args[i + 1]);
        case "--xmx" -> xmx = args[i + 1];
        case "--jar" ->
            jars = java.util.Arrays.stream(args[i + 1].split(",")).map(Path::of).toList();
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    Path dir = Files.createTempDirectory("scale-run");
    try (MockCluster cluster = new MockCluster().withFaithfulWatchResume().reusingUnchangedLists();
        TcpProxy proxy = new TcpProxy(cluster.port())) {
      ScaleSeed.Seeded seeded = ScaleSeed.seed(cluster, services, drift, writer, writers);
      warmLists(cluster);
      System.out.printf(
          Locale.ROOT,
          "populated %d Services x %d endpoints, %d pods on node %s (%d Services select them)"
              + " in %.1f s (%s)%n",
          services,
          ENDPOINTS,
          seeded.podsHere(),
          ScaleSeed.NODE,
          seeded.servicesWithPodsHere(),
          seeded.seconds(),
          writer == ScaleSeed.Writer.HTTP ? writers + " HTTP writers" : "bulk");
      // Several jars (before and after a change) against the same populated mock, one at a time.
      for (Path jar : jars) {
        System.out.println("agent " + jar);
        try {
          run(
              jar,
              xmx,
              services,
              Files.createTempDirectory(dir, "run"),
              proxy,
              cluster.port(),
              seeded,
              drift,
              agentOptions,
              profiler);
        } catch (IllegalStateException e) {
          // An agent that cannot start in -Xmx (the point of the run) is a result, not the end.
          System.out.printf(
              Locale.ROOT,
              "RESULT services=%d xmx=%s drift=%s seed_s=%.1f FAILED: %s%n",
              services,
              xmx,
              drift ? "on" : "off",
              seeded.seconds(),
              e.getMessage());
        }
      }
    }
  }

  /**
   * @param seeded what the mock holds (and how long writing it took)
   * @param drift whether the drift detector runs: this node's name in {@code NODE_NAME}, as the
   *     DaemonSet sets it (without it, no node name: the detector is off)
   * @param agentOptions extra JVM options for the agent (e.g. a collector to compare)
   * @param profiler async-profiler's {@code libasyncProfiler.so}, loaded into the agent for the
   *     relist only (allocation profile, {@code relist-alloc-<services>.collapsed}: bucket it with
   *     {@code benchmarks/profile_buckets.py --rules alloc}), or null
   */
  private static void run(
      Path jar,
      String xmx,
      int services,
      Path dir,
      TcpProxy proxy,
      int apiPort,
      ScaleSeed.Seeded seeded,
      boolean drift,
      List<String> agentOptions,
      Path profiler)
      throws Exception {
    Path kubeconfig = dir.resolve("kubeconfig");
    Files.writeString(kubeconfig, kubeconfig("http://127.0.0.1:" + proxy.port()));
    int admin = freePort();
    Path socket = dir.resolve("rs.sock");
    Path gcLog = dir.resolve("gc.log");
    Path log = dir.resolve("agent.log");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command = new ArrayList<>();
    command.add(java);
    command.add("-Xmx" + xmx);
    command.add("-XX:+ExitOnOutOfMemoryError");
    command.add("-Xlog:gc:file=" + gcLog);
    command.addAll(agentOptions);
    command.addAll(
        List.of(
            "-jar",
            jar.toString(),
            "agent",
            "--kubeconfig",
            kubeconfig.toString(),
            "--socket",
            socket.toString(),
            "--admin-port",
            Integer.toString(admin),
            "--state-file",
            "",
            "--relist-after",
            "1s"));
    ProcessBuilder agentProcess =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
    nodeName(agentProcess.environment(), drift);
    Process agent = agentProcess.start();
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
      DriftCheck.Report driftAtReady = DriftCheck.await(http, admin, socket, Duration.ofMinutes(2));
      System.out.println("drift at ready: " + driftAtReady.line());
      long pid = agent.pid();
      long heapAfterGc = heapAfterGc(pid);
      // What the heap holds once ready, by class (after the full GCs above: live objects only).
      Path histogram = histogram(pid, services, drift, "");
      System.out.println("class histogram at ready: " + histogram);
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
      if (profiler != null) {
        // Allocation samples (TLAB refills and outside-TLAB allocations, weighted by size) from
        // here to the relist's end: what the relist allocates, by stack.
        profilerCommand(pid, profiler, "start,event=alloc");
      }
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
      if (profiler != null) {
        Path out = Path.of("relist-alloc-" + services);
        profilerCommand(pid, profiler, "dump,total,file=" + out.toAbsolutePath() + ".collapsed");
        profilerCommand(pid, profiler, "stop,total,file=" + out.toAbsolutePath() + ".html");
        System.out.println("relist allocation profile: " + out + ".collapsed, " + out + ".html");
      }
      long heapAfterRelist = heapAfterGc(pid);
      // And after it: what a relist leaves behind that was not there at ready.
      Path relisted = histogram(pid, services, drift, "-relist");
      System.out.println("class histogram after the relist: " + relisted);
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
      String driftResult = "off";
      if (drift) {
        // NotInEndpoints is reported only after the grace from the last sync (the relist's):
        // past it, a pod the slices miss would show.
        Thread.sleep(DRIFT_GRACE.plusSeconds(2).toMillis());
        DriftCheck.Report after = DriftCheck.read(http, admin, socket);
        System.out.println("drift after the relist and its grace: " + after.line());
        boolean clean = driftAtReady.matches(seeded) && after.matches(seeded);
        driftResult = clean ? "on" : "on-UNEXPECTED"; // the two lines above say what
      }
      System.out.printf(
          Locale.ROOT,
          "RESULT services=%d endpoints=%d xmx=%s drift=%s seed_s=%.1f ready_s=%.1f"
              + " heap_after_gc_mib=%.1f peak_mib=%d relist_versions=%.0f relist_alloc_mib=%d%n",
          services,
          services * ENDPOINTS,
          xmx,
          driftResult,
          seeded.seconds(),
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

  /** The node name as the DaemonSet passes it (the downward API's spec.nodeName), or none. */
  private static void nodeName(Map<String, String> environment, boolean drift) {
    environment.remove("ROUTESYNC_NODE_NAME");
    environment.remove("ROUTESYNC_DRIFT_DETECTOR");
    if (drift) {
      environment.put("NODE_NAME", ScaleSeed.NODE);
    } else {
      environment.remove("NODE_NAME");
    }
  }

  /** The heap's live objects by class (jcmd runs a full GC first), written to a file. */
  private static Path histogram(long pid, int services, boolean drift, String suffix)
      throws Exception {
    Path file =
        Path.of("scale-run-histogram-" + services + (drift ? "-drift" : "") + suffix + ".txt");
    Files.writeString(file, jcmd(pid, "GC.class_histogram"));
    return file;
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

  /**
   * Lists the slices and the Services once as the agent will (label selector, pages of 500), so the
   * mock's pager holds the whole lists ({@link MockCluster#reusingUnchangedLists}) before the agent
   * asks: a real API server serves those pages from its watch cache at once. The mock can take
   * longer than a request's timeout to build the first one at 40,000 slices; it finishes it anyway,
   * so a retry is served from the snapshot.
   */
  private static void warmLists(MockCluster cluster) throws InterruptedException {
    long start = System.nanoTime();
    var page = new io.fabric8.kubernetes.api.model.ListOptionsBuilder().withLimit(500L).build();
    for (int attempt = 1; ; attempt++) {
      try {
        var client = cluster.client();
        client
            .discovery()
            .v1()
            .endpointSlices()
            .inAnyNamespace()
            .withLabel("mesh-managed", "true")
            .list(page);
        client.services().inAnyNamespace().withLabel("mesh-managed", "true").list(page);
        System.out.printf(
            Locale.ROOT,
            "slice and Service lists held by the mock's pager after %.1f s (%d attempts)%n",
            (System.nanoTime() - start) / 1e9,
            attempt);
        return;
      } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
        if (attempt >= 20) {
          throw e;
        }
        Thread.sleep(5_000);
      }
    }
  }

  /**
   * One async-profiler command in the agent, through {@code jcmd JVMTI.agent_load}. The options are
   * quoted: unquoted, jcmd's parser takes {@code event=alloc} for a named argument of its own and
   * the profiler gets nothing.
   */
  private static void profilerCommand(long pid, Path profiler, String options) throws Exception {
    String answer = jcmd(pid, "JVMTI.agent_load " + profiler + " \"" + options + "\"");
    System.out.println("async-profiler " + options + ": " + answer.strip().replace("\n", " "));
    if (!answer.contains("return code: 0")) {
      throw new IllegalStateException("async-profiler " + options + ": " + answer);
    }
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
