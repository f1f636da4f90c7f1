package dev.routesync.e2e;

import static org.awaitility.Awaitility.await;

import dev.routesync.testing.GrpcJavaClient;
import dev.routesync.testing.Http1;
import dev.routesync.testing.UdsHttp;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The agent as it is shipped: {@code java -jar target/routesync.jar agent} in a process of its own,
 * against the real control plane, with its socket, admin port and state file in a test directory.
 * Closing it sends SIGTERM, as the kubelet does.
 */
public final class AgentProcess implements AutoCloseable {

  /** A cold JVM's start and first list; what the tests wait for, not what they test. */
  public static final Duration START_BUDGET = Duration.ofSeconds(60);

  private final Process process;
  private final Path dir;
  private final Path socket;
  private final int adminPort;
  private final GrpcJavaClient grpc;
  private final UdsHttp http;

  private AgentProcess(Process process, Path dir, Path socket, int adminPort) {
    this.process = process;
    this.dir = dir;
    this.socket = socket;
    this.adminPort = adminPort;
    this.grpc = new GrpcJavaClient(socket);
    this.http = new UdsHttp(socket);
  }

  /**
   * Starts {@code routesync agent} with the given kubeconfig on node {@code node-0}, watching
   * {@code namespace} only (every namespace, as the shipped ConfigMap does, when it is empty), plus
   * {@code extraArgs}. The state file lives in {@code dir}, so a second agent started on the same
   * {@code dir} warm-starts from the first one's table.
   */
  public static AgentProcess start(
      ControlPlane cluster, Path dir, Path kubeconfig, String namespace, String... extraArgs)
      throws IOException {
    Files.createDirectories(dir);
    Path socket = dir.resolve("rs.sock");
    int adminPort = freePort();
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx256m");
    command.add("-jar");
    command.add(cluster.project().resolve("target/routesync.jar").toString());
    command.addAll(
        List.of(
            "agent",
            "--kubeconfig",
            kubeconfig.toString(),
            "--socket",
            socket.toString(),
            "--admin-host",
            "127.0.0.1",
            "--admin-port",
            Integer.toString(adminPort),
            "--node-name",
            "node-0",
            "--state-file",
            dir.resolve("state.bin").toString(),
            "--state-flush",
            "100ms",
            "--shutdown-timeout",
            "5s"));
    if (!namespace.isEmpty()) {
      command.addAll(List.of("--namespace", namespace));
    }
    command.addAll(List.of(extraArgs));
    Path log = dir.resolve("agent.log");
    Process process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
    return new AgentProcess(process, dir, socket, adminPort);
  }

  private static int freePort() throws IOException {
    try (ServerSocket probe = new ServerSocket(0)) {
      return probe.getLocalPort();
    }
  }

  public Path socket() {
    return socket;
  }

  public GrpcJavaClient grpc() {
    return grpc;
  }

  public UdsHttp http() {
    return http;
  }

  public String adminUrl() {
    return "http://127.0.0.1:" + adminPort;
  }

  /** Waits until the agent is ready (its first table is published and trusted). */
  public AgentProcess awaitReady() {
    await()
        .atMost(START_BUDGET)
        .pollInterval(Duration.ofMillis(200))
        .ignoreExceptions()
        .failFast("the agent exited:\n" + log(), () -> !process.isAlive())
        .until(() -> Http1.get(adminUrl() + "/readyz").statusCode() == 200);
    return this;
  }

  /**
   * One Prometheus sample's value, summed over every series of {@code name} whose labels contain
   * {@code labelFragment} (empty for all); 0 when there is none.
   */
  public double metric(String name, String labelFragment) throws IOException {
    String body = Http1.get(adminUrl() + "/metrics").body();
    Pattern line =
        Pattern.compile("^" + Pattern.quote(name) + "(\\{[^}]*\\})? (\\S+)$", Pattern.MULTILINE);
    Matcher matcher = line.matcher(body);
    double sum = 0;
    while (matcher.find()) {
      String labels = matcher.group(1) == null ? "" : matcher.group(1);
      if (labels.contains(labelFragment)) {
        sum += Double.parseDouble(matcher.group(2));
      }
    }
    return sum;
  }

  /** Runs a {@code routesync} client command (get, watch, ...) against this agent's socket. */
  public ControlPlane.Result cli(ControlPlane cluster, String... args) {
    List<String> command = new ArrayList<>(cliCommand(cluster));
    command.addAll(List.of(args));
    return ControlPlane.run(command);
  }

  /** {@code java -jar target/routesync.jar}, for a command the test runs itself (say, watch). */
  public List<String> cliCommand(ControlPlane cluster) {
    return List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-jar",
        cluster.project().resolve("target/routesync.jar").toString());
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  public String log() {
    try {
      Path log = dir.resolve("agent.log");
      return Files.exists(log) ? Files.readString(log) : "";
    } catch (IOException e) {
      return "(log unreadable: " + e + ")";
    }
  }

  /** SIGTERM, then SIGKILL if the drain outlives its timeout; returns the exit code. */
  public int stop() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(20, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    return process.exitValue();
  }

  @Override
  public void close() throws Exception {
    try {
      grpc.close();
    } finally {
      if (process.isAlive()) {
        stop();
      }
    }
  }
}
