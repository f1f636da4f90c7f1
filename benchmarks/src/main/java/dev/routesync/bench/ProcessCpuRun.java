package dev.routesync.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Whole-process CPU per watch event, the agent against two peers (target 0 of issue 12, target 1 of
 * issue 23), side by side on one feed. No JMH: four processes besides this one.
 *
 * <ul>
 *   <li>the feed ({@link FeedServer}, CRUD mode): fabric8's CRUD mock with {@code --objects}
 *       labelled Services and Endpoints, behind a loopback relay, and the scripted writer;
 *   <li>the agent, the built jar as in production ({@code routesync agent --source endpoints}, the
 *       image's JVM flags by default, no admin port, no state file), with this process's grpc-java
 *       Watch subscriber on its socket (to see what it published, and when);
 *   <li>the official JavaScript client's informer ({@code @kubernetes/client-node}, {@code
 *       makeInformer} on {@code /api/v1/endpoints}, a {@code Map} of namespace/name to ready {@code
 *       ip:port}s: {@code benchmarks/js-informer/informer.mjs}), the closest thing a team would run
 *       instead of the agent (issue 23);
 *   <li>the seed's {@code EndpointWatcher} as written, on the official Python client ({@code
 *       benchmarks/python/seed_endpoint_watcher.py}, which says what harness lines it adds).
 * </ul>
 *
 * <p>All three read the same mock with the same label selector, so they get the same events: the
 * agent through the mock's loopback relay (websocket watches), the peers ({@link WatcherPeer})
 * through {@link HttpWatchBridge} (the CRUD mock serves watches only over websockets; both official
 * clients stream chunked HTTP). {@code --no-js true} or {@code --no-python true} leaves a peer out.
 * A warm-up burst (reported apart, as "cold": the JIT still compiling), then {@code --bursts}
 * measured ones, each of {@code --burst} skewed writes ({@link FeedScript}) paced at {@code
 * --rate}/s. Over each burst, from just before its first write until all have converged (every
 * object written holds its last write: the agent's as received by the subscriber, the peers'
 * counted events) plus {@code --settle} ms, it reads each process's utime + stime from {@code
 * /proc/<pid>/stat}, and the agent's per thread (GC, JIT compiler threads, event loops, fabric8's
 * executor). It reports CPU per event for each and the agent's ratio to each peer (issue 12's
 * target against the Python loop: ≤ 0.5x; issue 23's against the informer: ≤ 1.0x), versions the
 * agent published and writes each peer made to its registry, each one's convergence after the last
 * write, and at the end each process's resident memory (VmRSS, and its peak VmHWM). The agent's
 * view (through the subscriber) is checked against the feed's final state, and decides the exit
 * code; each peer's registry is checked too (sha256 digest) and reported, not failed: a peer that
 * keeps ghosts is a finding.
 *
 * <p>The agent's window includes serving the one Watch subscriber (a few versions per burst); the
 * peers serve nothing. All include their idle wake-ups during the window. CPU ticks are 10 ms, so a
 * burst of a few thousand events (a second or more of CPU) reads to about 1%.
 *
 * <p>With {@code --profile <libasyncProfiler.so>} async-profiler is loaded into the agent (jcmd
 * JVMTI.agent_load) for the measured bursts only and writes collapsed stacks to {@code
 * <out>/agent.collapsed} ({@code benchmarks/profile_buckets.py --rules process} buckets them).
 * Default run (1,000 objects, warm-up 3,000, two bursts of 3,000 at 300/s): about 1 min 20 s. Run
 * it with {@code benchmarks/process-cpu.sh}, which builds what is missing and installs both
 * clients.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.routesync.bench.ProcessCpuRun \
 *     --agent-jar target/routesync.jar --watcher benchmarks/python/seed_endpoint_watcher.py \
 *     --js-watcher benchmarks/js-informer/informer.mjs
 * </pre>
 */
public final class ProcessCpuRun {

  /** Each peer's target for the agent's warm CPU per event, as a ratio (issues 23 and 12). */
  private static final Map<String, String> TARGETS = Map.of("js", "<= 1.0x", "python", "<= 0.5x");

  private final Map<String, String> options = new LinkedHashMap<>();
  private final Path out;
  private final int objects;
  private Child feed;
  private Child agent;
  // By name ("js", "python"), in the order they are started and reported.
  private final Map<String, WatcherPeer> peers = new LinkedHashMap<>();
  private FeedSubscriber subscriber;
  private long lastSeq;
  // The newest write of each object so far (seq), for the final check.
  private final long[] finalSeq;

  private ProcessCpuRun(String[] args) throws IOException {
    options.put("--agent-jar", "target/routesync.jar");
    options.put("--java", Path.of(System.getProperty("java.home"), "bin", "java").toString());
    options.put(
        "--agent-jvm",
        "-XX:+UseSerialGC -Xms96m -Xmx96m -XX:MaxMetaspaceSize=80m -XX:ReservedCodeCacheSize=32m"
            + " -XX:MaxDirectMemorySize=16m -Xss512k -XX:ActiveProcessorCount=2"
            + " -XX:+ExitOnOutOfMemoryError");
    options.put("--python", "/usr/bin/python3");
    options.put("--watcher", "benchmarks/python/seed_endpoint_watcher.py");
    options.put("--node", "node");
    options.put("--js-watcher", "benchmarks/js-informer/informer.mjs");
    options.put("--objects", "1000");
    options.put("--warmup", "3000");
    options.put("--bursts", "2");
    options.put("--burst", "3000");
    options.put("--rate", "300");
    options.put("--seed", "42");
    options.put("--settle", "500");
    options.put("--out", "");
    options.put("--profile", "");
    options.put("--profile-event", "cpu");
    options.put("--no-python", "false");
    options.put("--no-js", "false");
    for (int i = 0; i < args.length; i += 2) {
      if (!options.containsKey(args[i])) {
        throw new IllegalArgumentException(
            "unknown option " + args[i] + "; known: " + options.keySet());
      }
      options.put(args[i], args[i + 1]);
    }
    out =
        options.get("--out").isEmpty()
            ? Files.createTempDirectory("process-cpu")
            : Files.createDirectories(Path.of(options.get("--out")));
    objects = Integer.parseInt(options.get("--objects"));
    finalSeq = new long[objects];
  }

  private String opt(String name) {
    return options.get(name);
  }

  private int intOpt(String name) {
    return Integer.parseInt(options.get(name));
  }

  private boolean flag(String name) {
    return Boolean.parseBoolean(options.get(name));
  }

  public static void main(String[] args) throws Exception {
    ProcessCpuRun run = new ProcessCpuRun(args);
    int code = 1;
    try {
      code = run.run();
    } finally {
      run.close();
    }
    System.exit(code);
  }

  private int run() throws Exception {
    System.out.printf("process-cpu: options %s; output in %s%n", options, out);
    String java = opt("--java");
    feed =
        new Child(
            "feed",
            List.of(
                java,
                "-Xmx1g",
                "-cp",
                System.getProperty("java.class.path"),
                FeedServer.class.getName(),
                "--mode",
                "crud",
                "--kind",
                "endpoints",
                "--objects",
                String.valueOf(objects)),
            out.resolve("feed.log"),
            true);
    String[] ready = feed.expect("READY", 120, TimeUnit.SECONDS).split(" ");
    Path kubeconfig = out.resolve("kubeconfig");
    Files.writeString(kubeconfig, kubeconfig(ready[1], /* skipTlsVerify= */ false));
    Path pythonKubeconfig = out.resolve("kubeconfig-http-watch");
    Files.writeString(pythonKubeconfig, kubeconfig(ready[2], /* skipTlsVerify= */ false));
    // The same server: @kubernetes/client-node refuses an http:// one unless TLS checks are off.
    Path jsKubeconfig = out.resolve("kubeconfig-http-watch-js");
    Files.writeString(jsKubeconfig, kubeconfig(ready[2], /* skipTlsVerify= */ true));
    Path socket = out.resolve("rs.sock");
    Files.deleteIfExists(socket); // a killed agent's socket file, which refuses connections
    List<String> agentCommand = new ArrayList<>();
    agentCommand.add(java);
    agentCommand.addAll(Arrays.asList(opt("--agent-jvm").trim().split("\\s+")));
    agentCommand.addAll(
        List.of(
            "-jar",
            opt("--agent-jar"),
            "agent",
            "--source",
            "endpoints",
            "--kubeconfig",
            kubeconfig.toString(),
            "--socket",
            socket.toString(),
            "--admin-port",
            "0",
            "--state-file",
            "",
            "--node-name",
            ""));
    agent = new Child("agent", agentCommand, out.resolve("agent.log"), false);
    if (!flag("--no-js")) {
      peers.put(
          "js",
          new WatcherPeer(
              "js",
              List.of(opt("--node"), opt("--js-watcher"), jsKubeconfig.toString()),
              out.resolve("js.log")));
    }
    if (!flag("--no-python")) {
      peers.put(
          "python",
          new WatcherPeer(
              "python",
              List.of(opt("--python"), opt("--watcher"), pythonKubeconfig.toString()),
              out.resolve("python.log")));
    }
    subscriber = subscribe(socket);
    awaitUntil(() -> subscriber.known() == objects, 120, "the agent's first list");
    StringBuilder pids = new StringBuilder();
    for (WatcherPeer peer : peers.values()) {
      awaitUntil(() -> peer.events() >= objects, 120, peer.name() + "'s first list");
      pids.append(String.format("%s pid %d, ", peer.name(), peer.pid()));
    }
    System.out.printf(
        "process-cpu: ready: agent pid %d, %sfeed pid %d; load average %s%n",
        agent.pid(), pids, feed.pid(), loadAverage());

    Burst cold = burst("warm-up", intOpt("--warmup"), Long.parseLong(opt("--seed")), false);
    List<Burst> measured = new ArrayList<>();
    boolean profiling = !opt("--profile").isEmpty();
    if (profiling) {
      profiler("start,event=" + opt("--profile-event") + ",interval=1ms,threads");
    }
    for (int b = 1; b <= intOpt("--bursts"); b++) {
      measured.add(burst("burst " + b, intOpt("--burst"), Long.parseLong(opt("--seed")) + b, true));
    }
    if (profiling) {
      profiler("stop,file=" + out.resolve("agent.collapsed") + ",collapsed");
      System.out.printf("process-cpu: profile in %s%n", out.resolve("agent.collapsed"));
    }
    summarize(cold, measured);
    return verify() ? 0 : 1;
  }

  /** A peer over one burst: CPU, writes to its registry, when it had the burst's last event. */
  private record PeerBurst(double ms, long writes, double convergedMs) {}

  private record Burst(
      String name,
      int writes,
      double writeSeconds,
      double agentMs,
      int versions,
      double agentConvergedMs,
      Map<String, PeerBurst> peers,
      Map<String, Double> agentThreads) {

    double perEventUs(double ms) {
      return ms * 1000 / writes;
    }
  }

  private Burst burst(String name, int count, long seed, boolean measured) throws Exception {
    int[] targets = new FeedScript(objects, seed, true).targets(count);
    long firstSeq = lastSeq + 1;
    long[] expect = new long[objects];
    Arrays.fill(expect, -1);
    for (int i = 0; i < count; i++) {
      expect[targets[i]] = firstSeq + i;
    }
    Map<String, Long> eventsBefore = new LinkedHashMap<>();
    Map<String, Long> writesBefore = new LinkedHashMap<>();
    for (WatcherPeer peer : peers.values()) {
      eventsBefore.put(peer.name(), peer.events());
      writesBefore.put(peer.name(), peer.writes());
    }
    int versionsBefore = subscriber.events();
    var threadsBefore = ProcStat.threads(agent.pid());
    long agentBefore = ProcStat.ticks(agent.pid());
    Map<String, Long> cpuBefore = new LinkedHashMap<>();
    for (WatcherPeer peer : peers.values()) {
      cpuBefore.put(peer.name(), ProcStat.ticks(peer.pid()));
    }

    feed.send("burst " + count + " " + opt("--rate") + " " + seed + " skewed");
    String[] done = feed.expect("DONE", 600, TimeUnit.SECONDS).split(" ");
    long first = Long.parseLong(done[2]);
    long last = Long.parseLong(done[3]);
    lastSeq = Long.parseLong(done[4]);
    if (lastSeq != firstSeq + count - 1) {
      throw new IllegalStateException(
          "feed's sequence " + lastSeq + " != " + (firstSeq + count - 1));
    }
    for (int i = 0; i < objects; i++) {
      if (expect[i] >= 0) {
        finalSeq[i] = expect[i];
      }
    }
    awaitUntil(
        () -> {
          for (int i = 0; i < objects; i++) {
            if (expect[i] >= 0 && subscriber.seen(i) < expect[i]) {
              return false;
            }
          }
          return true;
        },
        60,
        name + ": the agent's convergence");
    long agentConverged = 0;
    for (int i = 0; i < objects; i++) {
      if (expect[i] >= 0) {
        agentConverged = Math.max(agentConverged, subscriber.seenAt(i));
      }
    }
    Map<String, Long> convergedAt = new LinkedHashMap<>();
    for (WatcherPeer peer : peers.values()) {
      long want = eventsBefore.get(peer.name()) + count;
      awaitUntil(() -> peer.events() >= want, 120, name + ": " + peer.name() + "'s convergence");
      convergedAt.put(peer.name(), peer.lastEventNanos());
    }
    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(intOpt("--settle")));
    long agentAfter = ProcStat.ticks(agent.pid());
    Map<String, Long> cpuAfter = new LinkedHashMap<>();
    for (WatcherPeer peer : peers.values()) {
      cpuAfter.put(peer.name(), ProcStat.ticks(peer.pid()));
    }
    var threadsAfter = ProcStat.threads(agent.pid());
    Map<String, PeerBurst> peerBursts = new LinkedHashMap<>();
    for (WatcherPeer peer : peers.values()) {
      peer.events(); // after the CPU readings: a report costs the peer a little
      peerBursts.put(
          peer.name(),
          new PeerBurst(
              (cpuAfter.get(peer.name()) - cpuBefore.get(peer.name())) * ProcStat.MS_PER_TICK,
              peer.writes() - writesBefore.get(peer.name()),
              (convergedAt.get(peer.name()) - last) / 1e6));
    }
    Burst burst =
        new Burst(
            name,
            count,
            (last - first) / 1e9,
            (agentAfter - agentBefore) * ProcStat.MS_PER_TICK,
            subscriber.events() - versionsBefore,
            (agentConverged - last) / 1e6,
            peerBursts,
            ProcStat.byName(threadsBefore, threadsAfter));
    System.out.printf(
        "process-cpu: %s%s: %d writes in %.2f s (%.0f/s); agent %.0f ms CPU (%.0f us/event),"
            + " published %d versions, converged %.0f ms after the last write; load %s%n",
        name,
        measured ? "" : " (cold)",
        count,
        burst.writeSeconds(),
        count / Math.max(1e-9, burst.writeSeconds()),
        burst.agentMs(),
        burst.perEventUs(burst.agentMs()),
        burst.versions(),
        burst.agentConvergedMs(),
        loadAverage());
    peerBursts.forEach(
        (peer, p) ->
            System.out.printf(
                "process-cpu:   %s %.0f ms CPU (%.0f us/event), agent/%s %.2fx; %d writes to its"
                    + " registry, converged %.0f ms after the last write%n",
                peer,
                p.ms(),
                burst.perEventUs(p.ms()),
                peer,
                burst.agentMs() / p.ms(),
                p.writes(),
                p.convergedMs()));
    System.out.printf("process-cpu:   agent threads (ms): %s%n", top(burst.agentThreads()));
    return burst;
  }

  private static String top(Map<String, Double> threads) {
    StringBuilder text = new StringBuilder();
    threads.entrySet().stream()
        .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
        .forEach(e -> text.append(String.format("%s=%.0f ", e.getKey(), e.getValue())));
    return text.toString().trim();
  }

  private void summarize(Burst cold, List<Burst> measured) throws IOException {
    int writes = measured.stream().mapToInt(Burst::writes).sum();
    double agentMs = measured.stream().mapToDouble(Burst::agentMs).sum();
    int versions = measured.stream().mapToInt(Burst::versions).sum();
    Map<String, Double> threads = new TreeMap<>();
    measured.forEach(b -> b.agentThreads().forEach((k, v) -> threads.merge(k, v, Double::sum)));
    System.out.printf(
        "%nRESULT process-cpu warm: %d writes; agent %.0f ms CPU = %.0f us/event; versions %d for"
            + " %d writes; cold burst: agent %.0f ms; load %s%n",
        writes, agentMs, agentMs * 1000 / writes, versions, writes, cold.agentMs(), loadAverage());
    // The JIT is a cost a 3,000-event warm-up has not paid off yet; the rest is per event.
    double compilers =
        threads.entrySet().stream()
            .filter(e -> e.getKey().contains("CompilerThre"))
            .mapToDouble(Map.Entry::getValue)
            .sum();
    for (String peer : peers.keySet()) {
      double peerMs = measured.stream().mapToDouble(b -> b.peers().get(peer).ms()).sum();
      long peerWrites = measured.stream().mapToLong(b -> b.peers().get(peer).writes()).sum();
      double coldMs = cold.peers().get(peer).ms();
      System.out.printf(
          "RESULT %s warm: %.0f ms CPU = %.0f us/event; agent/%s %.2fx (target %s), %.2fx"
              + " without the agent's JIT compiler threads; %d writes to its registry; cold"
              + " burst: agent/%s %.2fx (%s %.0f ms)%n",
          peer,
          peerMs,
          peerMs * 1000 / writes,
          peer,
          agentMs / peerMs,
          TARGETS.getOrDefault(peer, "-"),
          (agentMs - compilers) / peerMs,
          peerWrites,
          peer,
          cold.agentMs() / coldMs,
          peer,
          coldMs);
    }
    System.out.printf("RESULT agent threads over the measured bursts (ms): %s%n", top(threads));
    StringBuilder rss = new StringBuilder(memory("agent", agent.pid()));
    for (WatcherPeer peer : peers.values()) {
      rss.append("; ").append(memory(peer.name(), peer.pid()));
    }
    System.out.printf("RESULT resident memory after the bursts (MiB, now / peak): %s%n", rss);
  }

  private static String memory(String name, long pid) throws IOException {
    ProcStat.Memory memory = ProcStat.memory(pid);
    return String.format(
        "%s %.0f / %.0f", name, memory.rssKiB() / 1024.0, memory.peakRssKiB() / 1024.0);
  }

  /**
   * The agent's published state against the feed's last writes (the exit code), and each peer's
   * registry by digest (reported: a peer's shortcomings are findings, not the run's failure).
   */
  private boolean verify() throws Exception {
    boolean ok = true;
    for (int i = 0; i < objects; i++) {
      if (subscriber.seen(i) != finalSeq[i]) {
        System.out.printf(
            "process-cpu: agent: svc-%d holds write %d, the feed's last is %d%n",
            i, subscriber.seen(i), finalSeq[i]);
        ok = false;
        break;
      }
    }
    String want = expectedDigest();
    StringBuilder peerStates = new StringBuilder();
    for (WatcherPeer peer : peers.values()) {
      String got = peer.digest();
      peer.events();
      peerStates.append(
          String.format(
              ", %s %s (%d entries for %d objects)",
              peer.name(),
              got.equals(want) ? "exact" : "WRONG: digest " + got + " != " + want,
              peer.entries(),
              objects));
    }
    System.out.printf(
        "process-cpu: final state: agent %s (through its Watch)%s%n",
        ok ? "exact" : "WRONG", peerStates);
    return ok;
  }

  private String expectedDigest() throws Exception {
    TreeMap<String, String> lines = new TreeMap<>();
    for (int i = 0; i < objects; i++) {
      List<String> addresses = new ArrayList<>();
      for (int k = 0; k < 3; k++) {
        addresses.add(FeedScript.ip(i, finalSeq[i], k) + ":8080");
      }
      addresses.sort(null);
      lines.put(FeedServer.NAMESPACE + "/" + FeedScript.name(i), String.join(",", addresses));
    }
    StringBuilder text = new StringBuilder();
    lines.forEach((k, v) -> text.append(k).append(' ').append(v).append('\n'));
    return HexFormat.of()
        .formatHex(
            MessageDigest.getInstance("SHA-256")
                .digest(text.toString().getBytes(StandardCharsets.UTF_8)));
  }

  private void profiler(String command) throws Exception {
    String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
    Process p =
        new ProcessBuilder(
                jcmd,
                String.valueOf(agent.pid()),
                "JVMTI.agent_load",
                opt("--profile"),
                // Quoted, or jcmd's parser takes "start,event" for an option name.
                "\"" + command + "\"")
            .redirectErrorStream(true)
            .start();
    String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    p.waitFor(60, TimeUnit.SECONDS);
    System.out.printf("process-cpu: profiler %s: %s%n", command, text.trim().replace('\n', ' '));
  }

  private FeedSubscriber subscribe(Path socket) throws Exception {
    awaitUntil(() -> Files.exists(socket) || !agent.alive(), 120, "the agent's socket");
    if (!agent.alive()) {
      throw new IllegalStateException("the agent exited:\n" + agent.tail());
    }
    return new FeedSubscriber(socket, objects, null);
  }

  interface Condition {
    boolean met() throws Exception;
  }

  private void awaitUntil(Condition condition, int seconds, String what) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (!condition.met()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("timed out waiting for " + what);
      }
      if (agent != null && !agent.alive()) {
        throw new IllegalStateException("the agent exited:\n" + agent.tail());
      }
      if (subscriber != null && subscriber.failure() != null) {
        throw new IllegalStateException("the Watch failed", subscriber.failure());
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
    }
  }

  static String loadAverage() {
    try {
      String[] words = Files.readString(Path.of("/proc/loadavg")).split(" ");
      return words[0] + " " + words[1] + " " + words[2];
    } catch (IOException e) {
      return "?";
    }
  }

  static String kubeconfig(String url, boolean skipTlsVerify) {
    return String.join(
        "\n",
        "apiVersion: v1",
        "kind: Config",
        "clusters:",
        "- name: feed",
        "  cluster:",
        "    server: " + url,
        "    insecure-skip-tls-verify: " + skipTlsVerify,
        "contexts:",
        "- name: feed",
        "  context:",
        "    cluster: feed",
        "    user: feed",
        "current-context: feed",
        "users:",
        "- name: feed",
        "  user:",
        "    token: bench",
        "");
  }

  private void close() throws Exception {
    if (subscriber != null) {
      subscriber.close();
    }
    for (WatcherPeer peer : peers.values()) {
      peer.close();
    }
    for (Child child : new Child[] {agent, feed}) {
      if (child != null) {
        child.close();
      }
    }
  }
}
