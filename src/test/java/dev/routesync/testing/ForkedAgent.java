package dev.routesync.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.awaitility.Awaitility;

/**
 * The agent as the image runs it, in a JVM of its own: {@code routesync demo} (the embedded mock
 * API server with its demo Services) under the image's {@code JAVA_TOOL_OPTIONS} (96 MiB heap,
 * SerialGC, {@code ExitOnOutOfMemoryError}) and {@code MALLOC_ARENA_MAX=2}, on a temporary socket
 * and a free admin port. For tests of what a hostile client can do to the process: an
 * OutOfMemoryError here ends this process, never the test's JVM.
 *
 * <p>The classpath is the test JVM's own ({@code java.class.path}), so the fork runs the classes
 * under test; the main class is the jar manifest's. Its stdout and stderr go to one file, read by
 * {@link #log()}. {@link #close()} kills it and deletes its directory.
 */
public final class ForkedAgent implements AutoCloseable {

  /** The image's JVM flags (the Dockerfile's {@code JAVA_TOOL_OPTIONS}). */
  public static final String IMAGE_JAVA_TOOL_OPTIONS =
      "-XX:+UseSerialGC -Xms96m -Xmx96m -XX:MaxMetaspaceSize=80m -XX:ReservedCodeCacheSize=32m"
          + " -XX:MaxDirectMemorySize=16m -Xss512k -XX:ActiveProcessorCount=2"
          + " -XX:+ExitOnOutOfMemoryError";

  private static final String MAIN_CLASS = "dev.routesync.app.Main";

  /** How long the agent may take from fork to a ready {@code /readyz}. */
  private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

  private static final HttpClient PROBES =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(1))
          .build();

  private final Path dir;
  private final Path socket;
  private final Path logFile;
  private final Path gcLog;
  private final int adminPort;
  private final Process process;

  private ForkedAgent(Path dir, Path socket, int adminPort, Process process) {
    this.dir = dir;
    this.socket = socket;
    this.logFile = dir.resolve("agent.log");
    this.gcLog = dir.resolve("gc.log");
    this.adminPort = adminPort;
    this.process = process;
  }

  /**
   * Forks the demo agent and waits until it is ready ({@code /readyz} 200).
   *
   * @param extraArgs more {@code demo} flags (for example {@code --churn-every=60000})
   */
  public static ForkedAgent start(String... extraArgs) throws IOException {
    return start(/* logApart= */ false, java.util.Map.of(), extraArgs);
  }

  /**
   * As {@link #start}, but {@link #log()} holds only what the agent logged (stderr), configured by
   * the production {@code logback.xml} (not the tests' quieter one); what it printed for people
   * (stdout: the demo's banner) is in {@link #printed()}.
   */
  public static ForkedAgent startLoggingApart(String... extraArgs) throws IOException {
    return start(/* logApart= */ true, java.util.Map.of(), extraArgs);
  }

  /** As {@link #startLoggingApart(String...)}, with more environment variables. */
  public static ForkedAgent startLoggingApart(String[] extraArgs, java.util.Map<String, String> env)
      throws IOException {
    return start(/* logApart= */ true, env, extraArgs);
  }

  /**
   * The agent itself ({@code routesync agent}, not the demo) against the API server of {@code
   * kubeconfig}: a mock in the test's JVM, so a large cluster costs the test's heap, not the
   * agent's.
   */
  public static ForkedAgent agent(Path kubeconfig, String... extraArgs) throws IOException {
    List<String> args = new ArrayList<>();
    args.add("--kubeconfig=" + kubeconfig);
    args.addAll(List.of(extraArgs));
    return start("agent", /* logApart= */ false, java.util.Map.of(), args.toArray(String[]::new));
  }

  private static ForkedAgent start(
      boolean logApart, java.util.Map<String, String> env, String... extraArgs) throws IOException {
    return start("demo", logApart, env, extraArgs);
  }

  private static ForkedAgent start(
      String subcommand, boolean logApart, java.util.Map<String, String> env, String... extraArgs)
      throws IOException {
    // Short: a Unix socket path must stay under 108 bytes.
    Path dir = Files.createTempDirectory(Path.of("/tmp"), "fa");
    Path socket = dir.resolve("rs.sock");
    int adminPort = freePort();
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xlog:gc:file=" + dir.resolve("gc.log"));
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    if (logApart) {
      command.add(
          "-Dlogback.configurationFile=" + ForkedAgent.class.getResource("/logback.xml").getPath());
    }
    command.add(MAIN_CLASS);
    command.add(subcommand);
    command.add("--socket=" + socket);
    command.add("--admin-host=127.0.0.1");
    command.add("--admin-port=" + adminPort);
    command.add("--state-file=" + dir.resolve("table.bin"));
    command.addAll(List.of(extraArgs));
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().put("JAVA_TOOL_OPTIONS", IMAGE_JAVA_TOOL_OPTIONS);
    builder.environment().put("MALLOC_ARENA_MAX", "2");
    builder.environment().putAll(env);
    if (logApart) {
      builder.redirectError(dir.resolve("agent.log").toFile());
      builder.redirectOutput(dir.resolve("stdout.txt").toFile());
    } else {
      builder.redirectErrorStream(true);
      builder.redirectOutput(dir.resolve("agent.log").toFile());
    }
    builder.redirectInput(ProcessBuilder.Redirect.PIPE);
    ForkedAgent agent = new ForkedAgent(dir, socket, adminPort, builder.start());
    try {
      Awaitility.await("forked agent ready")
          .atMost(START_TIMEOUT)
          .pollInterval(Duration.ofMillis(200))
          .until(() -> !agent.process.isAlive() || agent.probe("/readyz") == 200);
      if (!agent.process.isAlive()) {
        throw new IllegalStateException("forked agent exited at start:\n" + agent.log());
      }
    } catch (RuntimeException e) {
      agent.close();
      throw e;
    }
    return agent;
  }

  private static int freePort() throws IOException {
    try (ServerSocket probe = new ServerSocket(0)) {
      return probe.getLocalPort();
    }
  }

  public Path socket() {
    return socket;
  }

  public int adminPort() {
    return adminPort;
  }

  public long pid() {
    return process.pid();
  }

  public boolean alive() {
    return process.isAlive();
  }

  /**
   * The HTTP status of {@code GET path} on the admin port, or -1 when no answer came within 1 s.
   */
  public int probe(String path) {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + path))
            .timeout(Duration.ofSeconds(1))
            .GET()
            .build();
    var exchange = PROBES.sendAsync(request, HttpResponse.BodyHandlers.discarding());
    try {
      return exchange.get(1, TimeUnit.SECONDS).statusCode();
    } catch (Exception e) {
      exchange.cancel(true);
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      return -1;
    }
  }

  /** What the process printed so far, stdout and stderr together. */
  public String log() {
    try {
      return Files.readString(logFile, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** What the process printed on stdout, when started {@link #startLoggingApart apart}. */
  public String printed() {
    try {
      return Files.readString(dir.resolve("stdout.txt"), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Peak resident set size so far, in KiB ({@code VmHWM}); -1 once the process is gone. */
  public long peakRssKib() {
    return statusField("VmHWM:");
  }

  /**
   * The most heap in use before any collection so far, in MiB, from the fork's GC log ({@code
   * -Xlog:gc}: {@code Pause Young ... 60M->40M(92M)}); -1 when no collection ran.
   */
  public long peakHeapMib() {
    try {
      long peak = -1;
      for (String line : Files.readAllLines(gcLog, StandardCharsets.UTF_8)) {
        int arrow = line.indexOf("M->");
        if (arrow < 0) {
          continue;
        }
        int start = line.lastIndexOf(' ', arrow) + 1;
        peak = Math.max(peak, Long.parseLong(line.substring(start, arrow)));
      }
      return peak;
    } catch (IOException | NumberFormatException e) {
      return -1;
    }
  }

  /** The longest GC pause so far, in milliseconds, from the fork's GC log; 0 when none ran. */
  public double longestGcPauseMillis() {
    try {
      double longest = 0;
      for (String line : Files.readAllLines(gcLog, StandardCharsets.UTF_8)) {
        if (line.endsWith("ms") && line.contains("Pause")) {
          String millis = line.substring(line.lastIndexOf(' ') + 1, line.length() - 2);
          longest = Math.max(longest, Double.parseDouble(millis));
        }
      }
      return longest;
    } catch (IOException | NumberFormatException e) {
      return -1;
    }
  }

  private long statusField(String field) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc", String.valueOf(pid()), "status"))) {
        if (line.startsWith(field)) {
          return Long.parseLong(line.substring(field.length()).trim().split("\\s+")[0]);
        }
      }
    } catch (IOException | RuntimeException e) {
      return -1;
    }
    return -1;
  }

  /** Kills the process (it holds nothing worth a graceful stop) and deletes its directory. */
  @Override
  public void close() {
    process.destroyForcibly();
    try {
      process.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    } catch (IOException e) {
      // a temporary directory left behind is no failure of the test
    }
  }
}
