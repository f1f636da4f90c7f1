package dev.routesync.xds;

import dev.routesync.testing.LineProcess;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.assertj.core.api.Assertions;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Assumptions;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Node's {@code @grpc/grpc-js} with the {@code xds:///} resolver of {@code @grpc/grpc-js-xds}, as a
 * subprocess running {@code interop/grpc-js/xds-client.js}: a second xDS client, written
 * independently of grpc-java's, configured only by a bootstrap file.
 *
 * <p>{@link #start} launches it so that it loads grpc-js (seconds on a loaded machine) while the
 * test sets up the rest; {@link #go} lets it read the bootstrap and start. Then it calls one unary
 * method every 50 ms, each call with a deadline, and prints one JSON line per result; a reader
 * thread collects them as {@link Result}s, which a test polls (with Awaitility). Bounded three
 * ways: the script stops by itself after its run time, and as soon as its stdin closes; {@link
 * #close} closes stdin and then destroys the process forcibly.
 */
final class GrpcJsXdsClient implements AutoCloseable {

  /** The npm package directory (relative to the project root, surefire's working directory). */
  static final Path PACKAGE = Path.of("interop", "grpc-js");

  /** Set by CI ({@code .ci/run}): the client must run here, so a missing one fails the test. */
  static final String REQUIRE_VARIABLE = "ROUTESYNC_REQUIRE_GRPC_JS";

  /** The script's stderr: grpc-js's xDS trace (every request and resource), for a failure. */
  static final Path TRACE = Path.of("target", "grpc-js-xds-client.log");

  /** grpc-js-xds's tracer of its {@code priority} policy (which priority it uses, and why). */
  static final String PRIORITY_TRACER = "priority";

  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final int MAX_RESULTS = 10_000;

  /**
   * One call's outcome, as the script printed it, and when this process read it ({@link
   * System#nanoTime()}), so a test measures from its own event to the first result that shows it.
   */
  record Result(
      long call, boolean ok, String reply, int code, String status, String details, long readAt) {

    static Result of(JsonNode line, long readAt) {
      return new Result(
          line.path("call").asLong(),
          line.path("ok").asBoolean(),
          line.path("reply").asString(""),
          line.path("code").asInt(0),
          line.path("status").asString(""),
          line.path("details").asString(""),
          readAt);
    }

    boolean answeredBy(String backend) {
      return ok && reply.equals(backend);
    }

    boolean unavailable() {
      return !ok && code == 14;
    }
  }

  private final Process process;
  private final Path stderr;
  private final Thread reader;
  private final List<Result> results = new CopyOnWriteArrayList<>();
  private final List<String> unparsed = new CopyOnWriteArrayList<>();
  private volatile boolean loaded;
  private volatile boolean ready;

  private GrpcJsXdsClient(Process process, Path stderr) {
    this.process = process;
    this.stderr = stderr;
    this.reader = new Thread(this::read, "grpc-js-stdout");
    reader.setDaemon(true);
    reader.start();
  }

  /**
   * Why this machine cannot run the client, or empty when it can: the packages must be installed
   * ({@code npm ci --prefix interop/grpc-js}) and {@code node} must run.
   */
  static Optional<String> missing() {
    if (!Files.isDirectory(PACKAGE.resolve("node_modules/@grpc/grpc-js-xds"))
        || !Files.isDirectory(PACKAGE.resolve("node_modules/@grpc/grpc-js"))) {
      return Optional.of(
          PACKAGE.toAbsolutePath().resolve("node_modules")
              + " lacks @grpc/grpc-js and @grpc/grpc-js-xds: run `npm ci --prefix interop/grpc-js`");
    }
    try {
      Process node =
          new ProcessBuilder("node", "--version")
              .redirectErrorStream(true)
              .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
              .start();
      if (!node.waitFor(20, TimeUnit.SECONDS)) {
        node.destroyForcibly();
        return Optional.of("`node --version` did not finish within 20 s");
      }
      String version = new String(node.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      return node.exitValue() == 0
          ? Optional.empty()
          : Optional.of("`node --version` exited " + node.exitValue() + ": " + version.trim());
    } catch (IOException e) {
      return Optional.of("cannot run `node`: " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.of("interrupted while checking `node`");
    }
  }

  /**
   * Launches the script, which loads and waits for {@link #go}: then it reads {@code bootstrap}
   * (which need not exist before) and calls {@code method} on {@code target} every 50 ms with a
   * {@code deadline} per call, for at most {@code runFor}.
   */
  static GrpcJsXdsClient start(
      Path bootstrap, String target, String method, Duration deadline, Duration runFor)
      throws IOException {
    return start(bootstrap, target, method, deadline, runFor, TRACE);
  }

  /** As {@link #start}, with the script's stderr (grpc-js's trace) going to {@code trace}. */
  static GrpcJsXdsClient start(
      Path bootstrap, String target, String method, Duration deadline, Duration runFor, Path trace)
      throws IOException {
    // Kept after the run (the build's target/, the next run overwrites it): the whole xDS trace.
    Files.createDirectories(trace.toAbsolutePath().getParent());
    Path stderr = trace;
    ProcessBuilder builder =
        new ProcessBuilder(
                "node",
                PACKAGE.resolve("xds-client.js").toString(),
                target,
                "/" + method,
                "--every-ms",
                "50",
                "--deadline-ms",
                String.valueOf(deadline.toMillis()),
                "--seconds",
                String.valueOf(Math.max(1, runFor.toSeconds())),
                "--wait")
            .redirectError(stderr.toFile());
    builder.environment().put("GRPC_XDS_BOOTSTRAP", bootstrap.toAbsolutePath().toString());
    // What the xDS client did, for the failure message: its trace goes to stderr, kept in a file.
    builder.environment().put("GRPC_VERBOSITY", "DEBUG");
    builder
        .environment()
        .put(
            "GRPC_TRACE",
            "xds_client,xds_resolver,cds_balancer,xds_cluster_impl," + PRIORITY_TRACER);
    return new GrpcJsXdsClient(builder.start(), stderr);
  }

  private void read() {
    try (BufferedReader lines =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = lines.readLine()) != null) {
        accept(line);
      }
    } catch (IOException e) {
      // The process was destroyed: nothing more to read.
    }
  }

  private void accept(String line) {
    long readAt = System.nanoTime();
    JsonNode node;
    try {
      node = JSON.readTree(line);
    } catch (RuntimeException e) {
      if (unparsed.size() < 100) {
        unparsed.add(line);
      }
      return;
    }
    if (node.path("loaded").asBoolean()) {
      loaded = true;
    } else if (node.path("ready").asBoolean()) {
      ready = true;
    } else if (node.has("call") && results.size() < MAX_RESULTS) {
      results.add(Result.of(node, readAt));
    }
  }

  /**
   * Aborts the calling test when this machine cannot run the client ({@link #missing}), loudly;
   * fails it instead when {@value #REQUIRE_VARIABLE} is {@code true} (CI).
   */
  static void assumeRunnable() {
    Optional<String> missing = missing();
    if (missing.isEmpty()) {
      return;
    }
    if ("true".equalsIgnoreCase(System.getenv(REQUIRE_VARIABLE))) {
      Assertions.fail(
          "\n\n*** grpc-js xDS client CANNOT RUN, and "
              + REQUIRE_VARIABLE
              + "=true: "
              + missing.get()
              + " ***\n");
    }
    System.err.println(
        "\n!!! grpc-js xDS interop test SKIPPED: "
            + missing.get()
            + " (set "
            + REQUIRE_VARIABLE
            + "=true to make this a failure) !!!\n");
    Assumptions.abort("grpc-js xDS client not installed: " + missing.get());
  }

  /**
   * Waits (polling every 20 ms) until the latest result {@code is}; fails with the client's state.
   */
  void awaitLatest(String what, Duration within, Predicate<Result> is) {
    until(what, within, () -> latest().filter(is).isPresent());
  }

  /** Waits until there are {@code count} results. */
  void awaitCount(int count, Duration within) {
    until(count + " results", within, () -> results().size() >= count);
  }

  /** Waits until {@code condition} holds, or fails early when the script has exited. */
  void until(String what, Duration within, Callable<Boolean> condition) {
    try {
      Awaitility.await(what)
          .atMost(within)
          .pollInterval(Duration.ofMillis(20))
          .until(() -> condition.call() || !alive());
    } catch (ConditionTimeoutException e) {
      Assertions.fail("grpc-js, not within " + within + ": " + what + "\n" + describe());
    }
    try {
      if (!condition.call()) {
        Assertions.fail("grpc-js client exited before " + what + "\n" + describe());
      }
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  /** The index of the first result from {@code from} on that {@code is}; fails when none. */
  int indexOfFirst(int from, Predicate<Result> is) {
    List<Result> all = results();
    for (int i = from; i < all.size(); i++) {
      if (is.test(all.get(i))) {
        return i;
      }
    }
    throw new AssertionError("no such result after " + from + "\n" + describe());
  }

  /** Starts the calls: the script reads the bootstrap now. */
  void go() throws IOException {
    process.getOutputStream().write("go\n".getBytes(StandardCharsets.UTF_8));
    process.getOutputStream().flush();
  }

  /** Whether the script has loaded grpc-js and waits for {@link #go}. */
  boolean loaded() {
    return loaded;
  }

  /** Whether the script has created its client, after {@link #go}. */
  boolean ready() {
    return ready;
  }

  boolean alive() {
    return process.isAlive();
  }

  /** Every result so far, in call order. */
  List<Result> results() {
    return List.copyOf(results);
  }

  /** The results from the {@code from}-th on. */
  List<Result> resultsFrom(int from) {
    List<Result> all = results();
    return all.subList(Math.min(from, all.size()), all.size());
  }

  /** The latest result, or empty before the first. */
  Optional<Result> latest() {
    List<Result> all = results();
    return all.isEmpty() ? Optional.empty() : Optional.of(all.get(all.size() - 1));
  }

  /** The script's state for a failure message: alive or exit code, last results, stderr's tail. */
  String describe() {
    List<Result> all = results();
    List<Result> last = all.subList(Math.max(0, all.size() - 10), all.size());
    String tail;
    try {
      List<String> err = Files.readAllLines(stderr, StandardCharsets.UTF_8);
      tail = String.join("\n", err.subList(Math.max(0, err.size() - 60), err.size()));
    } catch (IOException e) {
      tail = "(stderr unreadable: " + e.getMessage() + ")";
    }
    List<String> state = new ArrayList<>();
    state.add(process.isAlive() ? "grpc-js client running" : "grpc-js client exited " + exit());
    state.add(all.size() + " results, the last: " + last);
    if (!unparsed.isEmpty()) {
      state.add("unparsed stdout: " + unparsed);
    }
    state.add("its stderr, all of it in " + stderr.toAbsolutePath() + " (last 60 lines):\n" + tail);
    return String.join("\n", state);
  }

  /**
   * The lines of the script's stderr (grpc-js's trace) that {@code match}, the last {@code max} of
   * them: what the client said about its own decisions, as evidence in a test's output.
   */
  List<String> traced(Predicate<String> match, int max) {
    try {
      List<String> hits =
          Files.readAllLines(stderr, StandardCharsets.UTF_8).stream().filter(match).toList();
      return hits.subList(Math.max(0, hits.size() - max), hits.size());
    } catch (IOException e) {
      return List.of("(stderr unreadable: " + e.getMessage() + ")");
    }
  }

  private String exit() {
    try {
      return String.valueOf(process.exitValue());
    } catch (IllegalThreadStateException e) {
      return "?";
    }
  }

  @Override
  public void close() throws Exception {
    LineProcess.stop(process, reader);
  }
}
