package dev.routesync.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;

import dev.routesync.app.Main;
import dev.routesync.config.AgentConfig;
import dev.routesync.config.DebugListener;
import dev.routesync.demo.DemoCluster;
import dev.routesync.docs.DocCommands.DocCommand;
import dev.routesync.drift.DriftSettings;
import dev.routesync.testing.AgentHarness;
import dev.routesync.testing.UdsHttp;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
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
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/**
 * Every shell command in README.md, CONTRIBUTING.md and docs/*.md is checked, so that a doc that is
 * not run cannot go stale. {@link DocCommands} says which lines are commands (the convention is
 * there and in CONTRIBUTING.md); this class checks each by its program:
 *
 * <ul>
 *   <li>{@code routesync ...} and {@code java -jar target/routesync*.jar ...}: parsed by the real
 *       command line ({@link Main#commandLine()}: FlagTypes and all), so an unknown flag or
 *       subcommand fails; the read-only ones ({@code get}, {@code watch}, {@code bootstrap} to
 *       stdout, {@code lint} of repository files, {@code version}, {@code --help}) also run, in
 *       this JVM, against an agent on the demo's mock cluster.
 *   <li>{@code curl --unix-socket ... http://localhost/...} and {@code curl
 *       http://127.0.0.1:9902/...} (the debug listener): sent to that agent; the answer must be
 *       2xx, or the status of the JSON the page shows as the command's output.
 *   <li>{@code grpcurl}: the method exists in the agent's proto.
 *   <li>{@code scripts/*.sh}, {@code benchmarks/*.sh}: the script exists, is executable, and knows
 *       every {@code --flag} the page passes it.
 *   <li>{@code mvn}: every {@code -Dtest} and {@code -Dit.test} class exists.
 *   <li>{@code kubectl}, {@code helm}, {@code docker}: the repository paths they read exist, {@code
 *       kubectl apply -k} renders with {@code kubectl kustomize} when kubectl is on PATH, and
 *       commands that need a cluster or a registry are in {@link #ELSEWHERE}, each with the test or
 *       CI step that runs its equivalent.
 * </ul>
 *
 * Anything else fails: classify it here.
 */
@Timeout(180)
class DocCommandsTest {

  private static final Path ROOT = Path.of("").toAbsolutePath();
  private static final Duration CLI_TIMEOUT = Duration.ofSeconds(20);

  /**
   * Commands (by prefix) that need a cluster, a registry or a person, and where their equivalent
   * runs instead. A prefix here covers every doc command that starts with it.
   */
  static final Map<String, String> ELSEWHERE =
      Map.ofEntries(
          Map.entry(
              "docker build",
              "needs Docker, which cannot run on the build machines; .ci/run runs"
                  + " scripts/check-runtime.sh, the image's jlinked runtime and flags"),
          Map.entry("docker push", "needs a registry; nothing to check locally"),
          Map.entry(
              "kubectl -n routesync rollout status",
              "needs a cluster; e2e RbacAsShippedIT installs daemonset/base (ShippedInstall)"),
          Map.entry(
              "kubectl label service",
              "needs a cluster; the e2e tier (ChurnIT, TopologyIT...) labels its Services"
                  + " mesh-managed=true"),
          Map.entry(
              "kubectl create namespace",
              "needs a cluster; the e2e tier creates its namespaces (ClusterNamespace)"),
          Map.entry(
              "kubectl label namespace",
              "needs a cluster; e2e RbacAsShippedIT applies the same Pod Security labels"
                  + " (daemonset/examples/namespace.yaml) to a real API server"),
          Map.entry(
              "helm install routesync daemonset/chart",
              "needs a cluster; .ci/run runs scripts/helm.sh lint and template on daemonset/chart,"
                  + " HelmChartTest renders it"),
          Map.entry(
              "helm template .", "the reader's own chart; the routesync lint half is parsed here"),
          Map.entry(
              "kubectl -n routesync port-forward",
              "needs a cluster; the debug listener it reaches is run here (curl 127.0.0.1:9902)"),
          Map.entry("open http://", "opens a browser; StatusPageBrowserTest loads the status page"),
          Map.entry(
              "kubectl apply -f release/",
              "the reader's release; GateAgainstClusterTest runs the gate after a rollout"),
          Map.entry(
              "kubectl rollout status deploy/quote",
              "the reader's Deployment; GateAgainstClusterTest runs the gate after a rollout"),
          Map.entry("kustomize build overlays/prod", "the reader's overlay"),
          Map.entry("tar -tzf bundle.tar.gz", "lists the bundle; DebugBundleCliTest reads it"),
          Map.entry(
              "cat > routesync-values.yaml",
              "writes the here-document; HelmChartTest renders the chart with values"),
          Map.entry("apt-get install -y chromium", "installs Chromium; .ci/run does the same"));

  private static DemoCluster cluster;
  private static AgentHarness agent;
  private static int debugPort;

  @BeforeAll
  static void startAgent() throws Exception {
    cluster = DemoCluster.start();
    try (ServerSocket free = new ServerSocket(0)) {
      debugPort = free.getLocalPort();
    }
    agent =
        AgentHarness.startWith(
            cluster.url(),
            config ->
                config
                    .withNodeName("node-a")
                    .withZone("zone-a")
                    .withDrift(new DriftSettings(true, Duration.ofSeconds(5)))
                    .withDebug(new DebugListener("127.0.0.1", debugPort)),
            0);
  }

  @AfterAll
  static void stop() throws Exception {
    if (agent != null) {
      agent.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @TestFactory
  Stream<DynamicTest> everyDocCommandIsChecked() throws IOException {
    List<DynamicTest> tests = new ArrayList<>();
    for (Path page : DocCommands.pages(ROOT)) {
      for (DocCommand command : DocCommands.of(ROOT.relativize(page))) {
        for (List<String> words : DocCommands.simpleCommands(command.text())) {
          tests.add(
              DynamicTest.dynamicTest(
                  command.where() + " " + String.join(" ", words), () -> check(command, words)));
        }
      }
    }
    assertThat(tests).as("doc commands found").hasSizeGreaterThan(40);
    return tests.stream();
  }

  private void check(DocCommand command, List<String> all) throws Exception {
    List<String> words = withoutPrefixes(all);
    String line = String.join(" ", words);
    for (String prefix : ELSEWHERE.keySet()) {
      if (line.startsWith(prefix)) {
        return; // the reason and the test that runs it are in ELSEWHERE
      }
    }
    String program = words.get(0);
    List<String> args = words.subList(1, words.size());
    switch (program) {
      case "routesync" -> routesync(command, args);
      case "java" -> java(command, args);
      case "curl" -> curl(command, args);
      case "grpcurl" -> grpcurl(command, args);
      case "mvn" -> mvn(args);
      case "kubectl" -> kubectl(command, args);
      case "cd" -> assertThat(ROOT.resolve(args.get(0))).as(command.where()).isDirectory();
      case "npm" -> npm(command, args);
      case "export" -> assertThat(args).allMatch(a -> a.contains("="));
      default -> {
        if (program.endsWith(".sh")) {
          script(command, program, args);
        } else {
          fail(
              command.where()
                  + ": no check knows `"
                  + line
                  + "`: classify it in DocCommandsTest (run it, or add it to ELSEWHERE with the"
                  + " test or CI step that runs it)");
        }
      }
    }
  }

  /** Drops {@code VAR=value} assignments and {@code sudo} before the program. */
  private static List<String> withoutPrefixes(List<String> words) {
    int i = 0;
    while (i < words.size() - 1
        && (words.get(i).matches("[A-Z_][A-Z0-9_]*=.*") || words.get(i).equals("sudo"))) {
      i++;
    }
    return words.subList(i, words.size());
  }

  // --- routesync --------------------------------------------------------------------------

  private void java(DocCommand command, List<String> args) throws Exception {
    assertThat(args.subList(0, 2))
        .as(command.where() + ": java -jar JAR")
        .first()
        .isEqualTo("-jar");
    // The jars the build makes (pom.xml): the image's and the demo's.
    assertThat(args.get(1))
        .as(command.where())
        .isIn("target/routesync.jar", "target/routesync-demo.jar");
    routesync(command, args.subList(2, args.size()));
  }

  private void routesync(DocCommand command, List<String> docArgs) throws Exception {
    List<String> args = docArgs.stream().map(DocCommandsTest::substituted).toList();
    CommandLine parsed = Main.commandLine();
    parsed.setOut(new PrintWriter(new StringWriter()));
    try {
      parsed.parseArgs(args.toArray(String[]::new));
    } catch (CommandLine.ParameterException e) {
      fail(command.where() + ": `routesync " + String.join(" ", args) + "`: " + e.getMessage());
    }
    if (!runnable(args)) {
      return;
    }
    List<String> run = new ArrayList<>(args);
    if (List.of("get", "watch", "bootstrap").contains(args.get(0))) {
      run.add("--socket=" + agent.socket());
    }
    if (args.size() > 1 && args.get(0).equals("debug") && args.get(1).equals("bundle")) {
      // The page's file, written under a temporary directory; the agent's debug listener.
      int file = run.indexOf("--output-file") + 1;
      Path bundle = Files.createTempDirectory("doc-bundle").resolve(run.get(file));
      run.set(file, bundle.toString());
      run.add("--debug-address=127.0.0.1:" + debugPort);
    }
    if (args.get(0).equals("watch")) {
      watch(command, run);
      return;
    }
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine commandLine = Main.commandLine();
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    int exitCode = commandLine.execute(run.toArray(String[]::new));
    assertThat(exitCode)
        .as(command.where() + ": `routesync " + String.join(" ", run) + "`\n" + out + err)
        .isZero();
    matchesDocumentedOutput(command, out.toString());
  }

  /**
   * The output a page shows has the shape the command prints: a table's header names the same
   * columns, and a report's {@code label:} lines are labels the command prints. The values are the
   * page's example, not this cluster's; and this cluster may be in an empty state the page does not
   * show (no drift, no sidecar, no latency sample yet): a table is compared only when the command
   * printed one, and a report that printed fewer labels than the page shows only by its first.
   */
  private static void matchesDocumentedOutput(DocCommand command, String actual) {
    List<String> printed = actual.lines().map(l -> l.strip().replaceAll("\\s+", " ")).toList();
    List<String> shown =
        command.output().stream().map(l -> l.strip().replaceAll("\\s+", " ")).toList();
    String why = command.where() + ": the output the page shows\n" + actual;
    shown.stream()
        .filter(l -> TABLE_HEADER.matcher(l).matches())
        .findFirst()
        .filter(header -> printed.stream().anyMatch(l -> TABLE_HEADER.matcher(l).matches()))
        .ifPresent(header -> assertThat(printed).as(why).contains(header));
    List<String> shownLabels = labels(shown);
    List<String> printedLabels = labels(printed);
    List<String> checked =
        printedLabels.size() >= shownLabels.size()
            ? shownLabels
            : shownLabels.stream().limit(1).toList();
    assertThat(printedLabels).as(why).containsAll(checked);
  }

  private static List<String> labels(List<String> lines) {
    return lines.stream()
        .map(REPORT_LABEL::matcher)
        .filter(java.util.regex.Matcher::matches)
        .map(m -> m.group(1))
        .toList();
  }

  private static final java.util.regex.Pattern TABLE_HEADER =
      java.util.regex.Pattern.compile("[A-Z][A-Z/]*( [A-Z][A-Z/]*){2,}");
  private static final java.util.regex.Pattern REPORT_LABEL =
      java.util.regex.Pattern.compile("([a-z][a-z0-9 ]*):( .*)?");

  /** Read-only commands cheap to run here; the rest (agent, demo, gate, writes) are parsed. */
  private static boolean runnable(List<String> args) {
    if (args.isEmpty()) {
      return false;
    }
    return switch (args.get(0)) {
      case "get", "watch", "version", "--help", "--version", "help" -> true;
      case "debug" -> args.size() > 1 && args.get(1).equals("bundle");
      case "bootstrap" -> !args.contains("--output-file");
      case "lint" ->
          args.stream().skip(1).filter(a -> !a.startsWith("-")).allMatch(DocCommandsTest::inRepo);
      default -> false;
    };
  }

  private static boolean inRepo(String path) {
    return Files.exists(ROOT.resolve(path));
  }

  /** Watch streams until stopped: it must print the first snapshot, then is left to the agent. */
  private void watch(DocCommand command, List<String> run) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine commandLine = Main.commandLine();
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    Thread watcher = new Thread(() -> commandLine.execute(run.toArray(String[]::new)), "doc-watch");
    watcher.setDaemon(true);
    watcher.start();
    try {
      await()
          .atMost(CLI_TIMEOUT)
          .untilAsserted(
              () ->
                  assertThat(out.toString()).as(command.where() + "\n" + err).contains(" reset "));
    } finally {
      watcher.interrupt();
    }
  }

  /** Shell variables the pages use, as the reader's shell would have them. */
  private static String substituted(String word) {
    return word.replace("$NODE_NAME", "node-a").replace("${NODE_NAME}", "node-a");
  }

  // --- curl --------------------------------------------------------------------------------

  private void curl(DocCommand command, List<String> args) throws Exception {
    String method = "GET";
    String socket = null;
    String url = null;
    for (int i = 0; i < args.size(); i++) {
      switch (args.get(i)) {
        case "-X" -> method = args.get(++i);
        case "--unix-socket" -> socket = args.get(++i);
        case "-s", "-sS", "-f", "-fsS" -> {}
        default -> {
          if (args.get(i).startsWith("http")) {
            url = args.get(i);
          } else {
            fail(command.where() + ": curl option " + args.get(i) + " is not checked here");
          }
        }
      }
    }
    assertThat(url).as(command.where() + ": curl's URL").isNotNull();
    URI uri = URI.create(url.replace("NAMESPACE", "shop").replace("/NAME", "/checkout"));
    int expected = documentedStatus(command);
    int status;
    if (socket != null) {
      assertThat(uri.getHost()).as(command.where()).isEqualTo("localhost");
      assertKnownSocket(command, socket);
      try (UdsHttp http = new UdsHttp(agent.socket())) {
        status = http.request(method, uri.getRawPath() + query(uri)).status();
      }
    } else {
      assertThat(uri.getHost() + ":" + uri.getPort())
          .as(command.where() + ": the debug listener's default address")
          .isEqualTo(DebugListener.DEFAULT_HOST + ":" + DebugListener.DEFAULT_PORT);
      HttpClient client =
          HttpClient.newBuilder()
              .version(HttpClient.Version.HTTP_1_1)
              .connectTimeout(Duration.ofSeconds(5))
              .build();
      URI local =
          new URI("http", null, "127.0.0.1", debugPort, uri.getPath(), uri.getQuery(), null);
      HttpRequest request =
          HttpRequest.newBuilder(local)
              .timeout(Duration.ofSeconds(10))
              .method(method, HttpRequest.BodyPublishers.noBody())
              .build();
      status = client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
    }
    if (expected == 0) {
      assertThat(status).as(command.where() + ": " + method + " " + uri).isBetween(200, 299);
    } else {
      assertThat(status).as(command.where() + ": " + method + " " + uri).isEqualTo(expected);
    }
  }

  private static String query(URI uri) {
    return uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery();
  }

  /** The status a page shows the command answering ({"status":400,...}), or 0 for any 2xx. */
  private static int documentedStatus(DocCommand command) {
    if (command.output().isEmpty() || !command.output().get(0).startsWith("{")) {
      return 0;
    }
    return new JsonObject(command.output().get(0)).getInteger("status", 0);
  }

  // --- the rest ----------------------------------------------------------------------------

  /**
   * A socket path a page sends to is the agent's default, or one the page starts the agent on
   * ({@code --socket PATH}).
   */
  private static void assertKnownSocket(DocCommand command, String socket) throws IOException {
    if (socket.equals(AgentConfig.DEFAULT_SOCKET)) {
      return;
    }
    assertThat(Files.readString(ROOT.resolve(command.page())))
        .as(
            command.where()
                + ": "
                + socket
                + " is neither the agent's default socket nor one the page passes to --socket")
        .contains("--socket " + socket);
  }

  private static void grpcurl(DocCommand command, List<String> args) throws IOException {
    int unix = args.indexOf("-unix");
    assertThat(unix).as(command.where() + ": grpcurl -unix").isNotNegative();
    String socket = args.stream().filter(a -> a.startsWith("/")).findFirst().orElseThrow();
    assertKnownSocket(command, socket);
    String proto = Files.readString(ROOT.resolve("src/main/proto/routesync/v1/registry.proto"));
    String last = args.get(args.size() - 1);
    if (last.equals("list")) {
      return;
    }
    assertThat(proto).contains("package routesync.v1;");
    String[] serviceMethod = last.replace("routesync.v1.", "").split("/");
    assertThat(proto)
        .as("grpcurl " + last)
        .contains("service " + serviceMethod[0] + " {")
        .containsPattern("rpc " + serviceMethod[1] + "\\s*\\(");
  }

  private static void mvn(List<String> args) throws IOException {
    for (String arg : args) {
      for (String property : List.of("-Dtest=", "-Dit.test=")) {
        if (arg.startsWith(property)) {
          for (String name : arg.substring(property.length()).split(",")) {
            if (!name.equals("NoSuch")) { // the documented way to run no surefire test
              assertThat(testClassExists(name.split("#")[0])).as("mvn " + arg).isTrue();
            }
          }
        }
      }
    }
  }

  private static boolean testClassExists(String simpleName) throws IOException {
    try (Stream<Path> files = Files.walk(ROOT.resolve("src/test/java"))) {
      return files.anyMatch(p -> p.getFileName().toString().equals(simpleName + ".java"));
    }
  }

  private static void kubectl(DocCommand command, List<String> args) throws Exception {
    if (args.size() >= 3 && args.get(0).equals("apply") && args.get(1).equals("-k")) {
      Path dir = ROOT.resolve(args.get(2));
      assertThat(dir.resolve("kustomization.yaml")).as(command.where()).isRegularFile();
      if (onPath("kubectl")) {
        Process kustomize =
            new ProcessBuilder("kubectl", "kustomize", args.get(2))
                .directory(ROOT.toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        assertThat(kustomize.waitFor(60, TimeUnit.SECONDS)).as("kubectl kustomize").isTrue();
        assertThat(kustomize.exitValue()).as("kubectl kustomize " + args.get(2)).isZero();
      }
      return;
    }
    fail(
        command.where()
            + ": kubectl "
            + String.join(" ", args)
            + " is not checked: run it here or add it to ELSEWHERE");
  }

  private static boolean onPath(String program) {
    String path = System.getenv().getOrDefault("PATH", "");
    for (String dir : path.split(":")) {
      if (Files.isExecutable(Path.of(dir, program))) {
        return true;
      }
    }
    return false;
  }

  private static void npm(DocCommand command, List<String> args) {
    int prefix = args.indexOf("--prefix");
    assertThat(prefix).as(command.where() + ": npm --prefix DIR").isPositive();
    assertThat(ROOT.resolve(args.get(prefix + 1)).resolve("package-lock.json"))
        .as(command.where())
        .isRegularFile();
  }

  private static void script(DocCommand command, String program, List<String> args)
      throws IOException {
    Path script = ROOT.resolve(program);
    assertThat(script).as(command.where()).isRegularFile();
    assertThat(Files.isExecutable(script)).as(command.where() + ": " + program + " +x").isTrue();
    String text = Files.readString(script);
    // A wrapper (scripts/helm.sh) passes its flags on: then CI must run the same line.
    String line = program + " " + String.join(" ", args);
    String ci = Files.readString(ROOT.resolve(".ci/run")).replaceAll("\\\\\n", " ");
    if (ci.replaceAll("[ \\t]+", " ").contains(line)) {
      return;
    }
    for (String arg : args) {
      if (arg.startsWith("dev.routesync.")) { // a test class (#method) the script runs
        String[] target = arg.split("#");
        Path source = ROOT.resolve("src/test/java").resolve(target[0].replace('.', '/') + ".java");
        assertThat(source).as(command.where() + ": " + arg).isRegularFile();
        if (target.length > 1) {
          assertThat(Files.readString(source))
              .as(command.where() + ": " + arg)
              .containsPattern("void " + target[1] + "\\(");
        }
      }
      if (arg.startsWith("--")) {
        String flag = arg.split("=")[0];
        assertThat(text).as(command.where() + ": " + program + " knows " + flag).contains(flag);
      }
    }
  }
}
