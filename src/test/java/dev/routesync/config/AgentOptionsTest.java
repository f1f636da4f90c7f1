package dev.routesync.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.routesync.app.Main;
import dev.routesync.drift.DriftSettings;
import dev.routesync.kube.WatchSettings;
import dev.routesync.serve.PeerPolicy;
import dev.routesync.state.StateSettings;
import dev.routesync.sync.CoalescerSettings;
import dev.routesync.units.Durations;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

class AgentOptionsTest {

  /** The options as a command carries them (the agent's and the demo's both mix them in). */
  @CommandLine.Command(name = "agent")
  static final class OptionsCommand {
    @CommandLine.Mixin AgentOptions options;
  }

  /** Parses {@code args} as {@code routesync agent} would, without running anything. */
  private static AgentOptions parse(String... args) {
    OptionsCommand command = new OptionsCommand();
    FlagTypes.register(new CommandLine(command)).parseArgs(args);
    return command.options;
  }

  private static AgentConfig config(String... args) {
    return parse(args).toConfig();
  }

  /** Variables the build and tests set that no flag reads (CI sets the first three). */
  private static final java.util.Set<String> TEST_ONLY_VARIABLES =
      java.util.Set.of(
          "ROUTESYNC_REQUIRE_KUBECTL",
          "ROUTESYNC_REQUIRE_GRPC_JS",
          "ROUTESYNC_REQUIRE_E2E",
          "ROUTESYNC_TEST_LOG_LEVEL",
          "ROUTESYNC_LOG_LEVEL");

  /** The end-to-end tier's: where the control plane is ({@code control-plane.sh env}). */
  private static final String TEST_ONLY_PREFIX = "ROUTESYNC_E2E_";

  private static void assumeNoRoutesyncEnvironment() {
    assumeTrue(
        System.getenv().keySet().stream()
            .filter(name -> !TEST_ONLY_VARIABLES.contains(name))
            .filter(name -> !name.startsWith(TEST_ONLY_PREFIX))
            .noneMatch(name -> name.startsWith("ROUTESYNC_") || name.equals("NODE_NAME")),
        "defaults can be overridden by ROUTESYNC_* environment variables");
  }

  @Test
  void defaultsAreTheDocumentedOnes() {
    assumeNoRoutesyncEnvironment();

    AgentConfig config = config();

    assertThat(config.source()).isEqualTo(Source.ENDPOINTSLICES);
    assertThat(config.kubeconfig()).isEmpty();
    assertThat(config.watch().labelSelector()).isEqualTo("mesh-managed=true");
    assertThat(config.watch().namespaces()).isEmpty();
    assertThat(config.watch().relistAfter()).isEqualTo(Duration.ofSeconds(10));
    assertThat(config.watch().resync()).isEqualTo(Duration.ofMinutes(10));
    assertThat(config.watch()).isEqualTo(WatchSettings.of(List.of(), "mesh-managed=true"));
    assertThat(config.coalescer().debounce()).isEqualTo(Duration.ofMillis(50));
    assertThat(config.coalescer().maxDelay()).isEqualTo(Duration.ofMillis(500));
    assertThat(config.coalescer().maxBatch()).isEqualTo(5000);
    assertThat(config.coalescer()).isEqualTo(CoalescerSettings.defaults());
    assertThat(config.socket()).isEqualTo(Path.of("/var/run/routesync/routesync.sock"));
    assertThat(config.adminHost()).isEqualTo("0.0.0.0");
    assertThat(config.adminPort()).isEqualTo(9464);
    assertThat(config.nodeName()).isEmpty();
    assertThat(config.drift().enabled()).isTrue();
    assertThat(config.drift().grace()).isEqualTo(Duration.ofSeconds(30));
  }

  // The defaults are written once, as constants of the records; the flags' defaultValue strings
  // name them. These two tests keep the wiring honest: what parsing nothing yields, and what
  // --help shows, are the records' constants.

  @Test
  void parsingNoFlagsYieldsTheRecordsDefaults() {
    assumeNoRoutesyncEnvironment();

    AgentConfig config = config();

    assertThat(config.source()).isEqualTo(AgentConfig.DEFAULT_SOURCE);
    assertThat(config.socket()).isEqualTo(Path.of(AgentConfig.DEFAULT_SOCKET));
    assertThat(config.adminHost()).isEqualTo(AgentConfig.DEFAULT_ADMIN_HOST);
    assertThat(config.adminPort()).isEqualTo(AgentConfig.DEFAULT_ADMIN_PORT);
    assertThat(config.grpcReflection()).isEqualTo(AgentConfig.DEFAULT_GRPC_REFLECTION);
    assertThat(config.shutdownTimeout()).isEqualTo(AgentConfig.DEFAULT_SHUTDOWN_TIMEOUT);
    assertThat(config.listenTcp()).isEmpty();
    assertThat(config.drift()).isEqualTo(DriftSettings.DEFAULT);
    assertThat(config.coalescer()).isEqualTo(CoalescerSettings.defaults());
    assertThat(config.watch())
        .isEqualTo(WatchSettings.of(List.of(), WatchSettings.DEFAULT_LABEL_SELECTOR));
    assertThat(config.state()).isEqualTo(StateSettings.defaults());
    assertThat(config.peers()).isEqualTo(PeerPolicy.ANY);
    // The short constructor that code uses fills in the flags' defaults too, but two: a
    // configuration built in code persists nothing unless it says where (tests must not share
    // /var/run/routesync/state), and opens no debug listener (tests must not share its port).
    AgentConfig fromCode =
        new AgentConfig(
            config.source(),
            config.kubeconfig(),
            config.watch(),
            config.coalescer(),
            config.socket(),
            config.adminHost(),
            config.adminPort(),
            config.nodeName());
    assertThat(fromCode.state()).isEqualTo(StateSettings.OFF);
    assertThat(fromCode.debug()).isEqualTo(DebugListener.OFF);
    assertThat(
            fromCode
                .withState(StateSettings.defaults())
                .withDebug(
                    new DebugListener(DebugListener.DEFAULT_HOST, DebugListener.DEFAULT_PORT)))
        .isEqualTo(config);
  }

  @Test
  void helpShowsTheRecordsDefaults() {
    assumeNoRoutesyncEnvironment();
    Map<String, String> defaults = new java.util.LinkedHashMap<>();
    defaults.put("--source", AgentConfig.DEFAULT_SOURCE.flagName());
    defaults.put("--label-selector", WatchSettings.DEFAULT_LABEL_SELECTOR);
    defaults.put("--socket", AgentConfig.DEFAULT_SOCKET);
    defaults.put("--admin-host", AgentConfig.DEFAULT_ADMIN_HOST);
    defaults.put("--admin-port", Integer.toString(AgentConfig.DEFAULT_ADMIN_PORT));
    defaults.put("--debounce", Durations.format(CoalescerSettings.DEFAULT_DEBOUNCE));
    defaults.put("--max-delay", Durations.format(CoalescerSettings.DEFAULT_MAX_DELAY));
    defaults.put("--max-batch", Integer.toString(CoalescerSettings.DEFAULT_MAX_BATCH));
    defaults.put("--relist-after", Durations.format(WatchSettings.DEFAULT_RELIST_AFTER));
    defaults.put("--resync", Durations.format(WatchSettings.DEFAULT_RESYNC));
    defaults.put("--grpc-reflection", Boolean.toString(AgentConfig.DEFAULT_GRPC_REFLECTION));
    defaults.put("--shutdown-timeout", Durations.format(AgentConfig.DEFAULT_SHUTDOWN_TIMEOUT));
    defaults.put("--drift-detector", Boolean.toString(DriftSettings.DEFAULT_ENABLED));
    defaults.put("--drift-grace", Durations.format(DriftSettings.DEFAULT_GRACE));
    defaults.put("--watch-silence", Durations.format(WatchSettings.DEFAULT_WATCH_SILENCE));
    defaults.put("--state-file", StateSettings.DEFAULT_FILE_TEXT);
    defaults.put("--state-flush", Durations.format(StateSettings.DEFAULT_FLUSH));
    // One line per option, however picocli wraps the descriptions.
    String help = new CommandLine(new OptionsCommand()).getUsageMessage().replaceAll("\\s+", " ");

    defaults.forEach(
        (flag, shown) ->
            assertThat(help)
                .as(flag)
                .containsPattern(
                    java.util.regex.Pattern.quote(flag)
                        + "=<[^>]+> [^(]*\\(default: "
                        + java.util.regex.Pattern.quote(shown)
                        + "\\)"));
  }

  static Stream<Arguments> validOverrides() {
    return Stream.of(
        override(List.of("--source", "endpoints"), AgentConfig::source, Source.ENDPOINTS),
        override(
            List.of("--source", " EndpointSlices "), AgentConfig::source, Source.ENDPOINTSLICES),
        override(
            List.of("--label-selector", "team=payments"),
            c -> c.watch().labelSelector(),
            "team=payments"),
        override(List.of("--label-selector", "  app  "), c -> c.watch().labelSelector(), "app"),
        override(
            List.of("--namespace", "shop, payments,shop,"),
            c -> c.watch().namespaces(),
            List.of("shop", "payments")),
        override(List.of("--namespace", ""), c -> c.watch().namespaces(), List.of()),
        override(
            List.of("--kubeconfig", "/tmp/kubeconfig"),
            AgentConfig::kubeconfig,
            Optional.of(Path.of("/tmp/kubeconfig"))),
        override(List.of("--socket", "/tmp/r.sock"), AgentConfig::socket, Path.of("/tmp/r.sock")),
        override(List.of("--admin-host", " 127.0.0.1 "), AgentConfig::adminHost, "127.0.0.1"),
        override(List.of("--admin-port", "0"), AgentConfig::adminPort, 0),
        override(List.of("--admin-port", "65535"), AgentConfig::adminPort, 65535),
        override(
            List.of("--debounce", "0", "--max-delay", "0"),
            AgentConfig::coalescer,
            new CoalescerSettings(Duration.ZERO, Duration.ZERO, 5000)),
        override(
            List.of("--debounce", "1s", "--max-delay", "1s", "--max-batch", "1"),
            AgentConfig::coalescer,
            new CoalescerSettings(Duration.ofSeconds(1), Duration.ofSeconds(1), 1)),
        override(List.of("--max-batch", "1000000"), c -> c.coalescer().maxBatch(), 1_000_000),
        override(
            List.of("--debounce", "10s", "--max-delay", "60s"),
            AgentConfig::coalescer,
            new CoalescerSettings(Duration.ofSeconds(10), Duration.ofSeconds(60), 5000)),
        override(
            List.of("--relist-after", "1s"), c -> c.watch().relistAfter(), Duration.ofSeconds(1)),
        override(
            List.of("--relist-after", "1h"), c -> c.watch().relistAfter(), Duration.ofHours(1)),
        override(List.of("--resync", "0"), c -> c.watch().resync(), Duration.ZERO),
        override(List.of("--resync", "1m"), c -> c.watch().resync(), Duration.ofMinutes(1)),
        override(List.of("--resync", "1h"), c -> c.watch().resync(), Duration.ofHours(1)),
        override(List.of("--resync", "24h"), c -> c.watch().resync(), Duration.ofHours(24)),
        override(
            List.of("--shutdown-timeout", "1s"),
            AgentConfig::shutdownTimeout,
            Duration.ofSeconds(1)),
        override(
            List.of("--shutdown-timeout", "5m"),
            AgentConfig::shutdownTimeout,
            Duration.ofMinutes(5)),
        override(List.of("--node-name", " node-7 "), AgentConfig::nodeName, "node-7"),
        override(
            List.of("--node-name", "ip-10-0-1-7.eu-west-1.compute.internal"),
            AgentConfig::nodeName,
            "ip-10-0-1-7.eu-west-1.compute.internal"),
        override(List.of("--node-name", ""), AgentConfig::nodeName, ""),
        override(List.of("--drift-detector=false"), c -> c.drift().enabled(), false),
        override(List.of("--drift-detector", "true"), c -> c.drift().enabled(), true),
        override(List.of("--grpc-reflection=false"), AgentConfig::grpcReflection, false),
        override(List.of("--grpc-reflection", "false"), AgentConfig::grpcReflection, false),
        override(List.of("--drift-grace", "0"), c -> c.drift().grace(), Duration.ZERO),
        override(List.of("--drift-grace", "1h"), c -> c.drift().grace(), Duration.ofHours(1)),
        override(List.of("--drift-grace=250ms"), c -> c.drift().grace(), Duration.ofMillis(250)),
        override(List.of("--debounce=75ms"), c -> c.coalescer().debounce(), Duration.ofMillis(75)));
  }

  private static Arguments override(
      List<String> args, Function<AgentConfig, Object> read, Object expected) {
    return Arguments.of(args, read, expected);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("validOverrides")
  void validFlagsOverrideTheDefaults(
      List<String> args, Function<AgentConfig, Object> read, Object expected) {
    AgentConfig config = config(args.toArray(String[]::new));

    assertThat(read.apply(config)).isEqualTo(expected);
  }

  static Stream<Arguments> invalidValues() {
    return Stream.of(
        invalid("--debounce", "--debounce", "banana"),
        invalid("--debounce", "--debounce", "10"),
        invalid("--debounce", "--debounce", "-1s"),
        invalid("--max-delay", "--max-delay", "1.5s"),
        invalid("--max-delay", "--debounce", "1s", "--max-delay", "500ms"),
        invalid("--max-batch", "--max-batch", "0"),
        invalid("--max-batch", "--max-batch", "1000001"),
        invalid("--max-batch", "--max-batch", "many"),
        invalid("--admin-port", "--admin-port", "70000"),
        invalid("--admin-port", "--admin-port", "-1"),
        invalid("--admin-port", "--admin-port", "http"),
        invalid("--debounce", "--debounce", "10001ms", "--max-delay", "60s"),
        invalid("--debounce", "--debounce", "999999999h", "--max-delay", "999999999h"),
        invalid("--max-delay", "--max-delay", "61s"),
        invalid("--max-delay", "--max-delay", "999999999h"),
        invalid("--relist-after", "--relist-after", "999ms"),
        invalid("--relist-after", "--relist-after", "61m"),
        invalid("--relist-after", "--relist-after", "0"),
        invalid("--resync", "--resync", "1ms"),
        invalid("--resync", "--resync", "59s"),
        invalid("--resync", "--resync", "25h"),
        invalid("--resync", "--resync", "999999999h"),
        invalid("--shutdown-timeout", "--shutdown-timeout", "999ms"),
        invalid("--shutdown-timeout", "--shutdown-timeout", "301s"),
        invalid("--shutdown-timeout", "--shutdown-timeout", "999999999h"),
        invalid("--relist-after", "--relist-after", "soon"),
        invalid("--resync", "--resync", "forever"),
        invalid("--namespace", "--namespace", "Shop"),
        invalid("--namespace", "--namespace", "shop,-payments"),
        invalid("--namespace", "--namespace", "shop_payments"),
        invalid("--namespace", "--namespace", "shop/payments"),
        invalid("--namespace", "--namespace", "a".repeat(64)),
        invalid("--source", "--source", "pods"),
        invalid("--source", "--source", "endpointslice"),
        invalid("--source", "--source", ""),
        invalid("--socket", "--socket", ""),
        invalid("--socket", "--socket", "   "),
        invalid("--listen-tcp", "--listen-tcp", "0.0.0.0:9465"),
        invalid("--listen-tcp", "--listen-tcp", "10.1.2.3:9465"),
        invalid("--listen-tcp", "--listen-tcp", "example.com:9465"),
        invalid("--listen-tcp", "--listen-tcp", "9465"),
        invalid("--listen-tcp", "--listen-tcp", "127.0.0.1:99999"),
        invalid("--grpc-reflection", "--grpc-reflection", "yes"),
        invalid("--shutdown-timeout", "--shutdown-timeout", "0"),
        invalid("--shutdown-timeout", "--shutdown-timeout", "later"),
        invalid("--node-name", "--node-name", "Node-A"),
        invalid("--node-name", "--node-name", "node_a"),
        invalid("--node-name", "--node-name", "-node"),
        invalid("--node-name", "--node-name", "node..a"),
        invalid("--node-name", "--node-name", "node.-a"),
        invalid("--node-name", "--node-name", "a".repeat(254)),
        invalid("--drift-detector", "--drift-detector", "maybe"),
        invalid("--drift-grace", "--drift-grace", "61m"),
        invalid("--drift-grace", "--drift-grace", "-1s"),
        invalid("--drift-grace", "--drift-grace", "soon"));
  }

  private static Arguments invalid(String flag, String... args) {
    return Arguments.of(flag, List.of(args));
  }

  @ParameterizedTest
  @org.junit.jupiter.params.provider.CsvSource({
    "127.0.0.1:9465, 127.0.0.1, 9465",
    "localhost:9465, 127.0.0.1, 9465",
    "[::1]:9465, 0:0:0:0:0:0:0:1, 9465",
    "127.0.0.2:0, 127.0.0.2, 0"
  })
  void listenTcpAcceptsLoopbackOnly(String flag, String host, int port) {
    AgentConfig config = parse("--listen-tcp", flag, "--listen-tcp-insecure").toConfig();
    assertThat(config.listenTcp())
        .hasValueSatisfying(
            address -> {
              assertThat(address.getAddress().getHostAddress()).isEqualTo(host);
              assertThat(address.getPort()).isEqualTo(port);
            });
    assertThat(parse().toConfig().listenTcp()).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"127.0.0.1:9465", "[::1]:0", "localhost:9465"})
  void listenTcpWithoutTheInsecureAcknowledgementIsRefusedSayingWhy(String address) {
    AgentOptions options = parse("--listen-tcp", address);

    assertThatThrownBy(options::toConfig)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "--listen-tcp serves the API to every local user (TCP has no group check, unlike the"
                + " socket); add --listen-tcp-insecure (or ROUTESYNC_LISTEN_TCP_INSECURE=true) to"
                + " accept that");
  }

  @Test
  void theInsecureAcknowledgementTakesAnExplicitValueToo() {
    assertThat(config("--listen-tcp", "127.0.0.1:0", "--listen-tcp-insecure=true").listenTcp())
        .isPresent();
    assertThatThrownBy(() -> config("--listen-tcp", "127.0.0.1:0", "--listen-tcp-insecure=false"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("add --listen-tcp-insecure");
  }

  @Test
  void theInsecureAcknowledgementAloneChangesNothing() {
    assertThat(config("--listen-tcp-insecure").listenTcp()).isEmpty();
  }

  @Test
  @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void theInsecureAcknowledgementHasAnEnvironmentTwin(@TempDir Path tempDir) throws Exception {
    // picocli reads the variable itself, so only a child process shows it: a value that is not a
    // boolean fails before anything starts, naming the flag.
    ProcessBuilder builder =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                "dev.routesync.app.Main",
                "agent",
                "--socket",
                tempDir.resolve("rs.sock").toString(),
                "--admin-port",
                "0",
                "--state-file",
                "")
            .redirectErrorStream(true)
            .redirectOutput(tempDir.resolve("out.txt").toFile());
    builder.environment().put("ROUTESYNC_LISTEN_TCP_INSECURE", "maybe");
    Process process = builder.start();
    try {
      assertThat(process.waitFor(50, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
      String output = java.nio.file.Files.readString(tempDir.resolve("out.txt"));
      assertThat(process.exitValue()).as(output).isEqualTo(2);
      assertThat(output).contains("--listen-tcp-insecure").contains("maybe");
    } finally {
      process.destroyForcibly();
    }
  }

  @ParameterizedTest(name = "{0}={1}")
  @org.junit.jupiter.params.provider.CsvSource({
    "NODE_NAME, Node_A, --node-name",
    "ROUTESYNC_NODE_NAME, node..a, --node-name",
    "ROUTESYNC_DRIFT_DETECTOR, maybe, --drift-detector",
    "ROUTESYNC_DRIFT_GRACE, 2h, --drift-grace"
  })
  @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void theDriftFlagsHaveEnvironmentTwins(
      String variable, String value, String flag, @TempDir Path tempDir) throws Exception {
    // picocli reads the variable itself, so only a child process shows it: a bad value fails
    // before anything starts, naming the flag.
    ProcessBuilder builder =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                "dev.routesync.app.Main",
                "agent",
                "--socket",
                tempDir.resolve("rs.sock").toString(),
                "--admin-port",
                "0",
                "--state-file",
                "")
            .redirectErrorStream(true)
            .redirectOutput(tempDir.resolve("out.txt").toFile());
    builder.environment().put(variable, value);
    Process process = builder.start();
    try {
      assertThat(process.waitFor(50, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
      String output = java.nio.file.Files.readString(tempDir.resolve("out.txt"));
      assertThat(process.exitValue()).as(output).isEqualTo(2);
      assertThat(output).contains(flag).contains(value);
    } finally {
      process.destroyForcibly();
    }
  }

  // A malformed value fails the parse (picocli: "Invalid value for option '--debounce': ..."), a
  // well-formed one out of range fails in the record that holds it; both name the flag.
  @Test
  @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void theInsecureFlagAcknowledgesEvenWhenTheEnvironmentAlreadyDid(@TempDir Path tempDir)
      throws Exception {
    // picocli toggles a boolean flag's default: with ROUTESYNC_LISTEN_TCP_INSECURE=true, the flag
    // alone used to turn the acknowledgement off again. The agent must get past validation and
    // fail later, at the kubeconfig that is not there.
    ProcessBuilder builder =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                "dev.routesync.app.Main",
                "agent",
                "--socket",
                tempDir.resolve("rs.sock").toString(),
                "--admin-port",
                "0",
                "--state-file",
                "",
                "--kubeconfig",
                tempDir.resolve("no-such-kubeconfig").toString(),
                "--listen-tcp",
                "127.0.0.1:0",
                "--listen-tcp-insecure")
            .redirectErrorStream(true)
            .redirectOutput(tempDir.resolve("out.txt").toFile());
    builder.environment().put("ROUTESYNC_LISTEN_TCP_INSECURE", "true");
    Process process = builder.start();
    try {
      assertThat(process.waitFor(50, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
      String output = java.nio.file.Files.readString(tempDir.resolve("out.txt"));
      assertThat(output).doesNotContain("add --listen-tcp-insecure").contains("--kubeconfig");
      assertThat(process.exitValue()).as(output).isEqualTo(2);
    } finally {
      process.destroyForcibly();
    }
  }

  @ParameterizedTest(name = "{1}")
  @MethodSource("invalidValues")
  void anInvalidValueIsRejectedWithAMessageNamingTheFlag(String flag, List<String> args) {
    assertThatThrownBy(() -> config(args.toArray(String[]::new)))
        .isInstanceOfAny(IllegalArgumentException.class, CommandLine.ParameterException.class)
        .hasMessageContaining(flag)
        .message()
        .doesNotContain("\n");
  }

  @ParameterizedTest
  @org.junit.jupiter.params.provider.CsvSource(
      delimiter = '|',
      textBlock =
          """
          --debounce     | banana   | Invalid value for option '--debounce': 'banana' is not a duration (expected e.g. 0, 250ms, 10s, 5m, 1h)
          --source       | pods     | Invalid value for option '--source': expected endpointslices or endpoints, got 'pods'
          --admin-port   | http     | Invalid value for option '--admin-port': 'http' is not an int
          --listen-tcp   | 9465     | Invalid value for option '--listen-tcp': expected HOST:PORT (e.g. 127.0.0.1:9465), got '9465'
          --log-format   | xml      | Invalid value for option '--log-format': 'xml' is not a log format; use text or json
          """)
  void aMalformedValueFailsTheParseNamingTheFlag(String flag, String value, String message) {
    assertThatThrownBy(() -> parse(flag, value))
        .isInstanceOf(CommandLine.ParameterException.class)
        .hasMessage(message);
  }

  @ParameterizedTest
  @org.junit.jupiter.params.provider.CsvSource(
      delimiter = '|',
      textBlock =
          """
          --debounce         | 11s   | --debounce must be between 0 and 10s, got 11s
          --max-delay        | 2m    | --max-delay must be between 0 and 1m, got 2m
          --relist-after     | 500ms | --relist-after must be between 1s and 1h, got 500ms
          --resync           | 1ms   | --resync must be 0 (off) or between 1m and 24h, got 1ms
          --shutdown-timeout | 1h    | --shutdown-timeout must be between 1s and 5m, got 1h
          """)
  void aDurationOutOfItsRangeIsRefusedNamingTheRange(String flag, String value, String message) {
    AgentOptions options = parse(flag, value);

    assertThatThrownBy(options::toConfig)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(message);
  }

  @Test
  void theLogFormatIsTextUnlessJsonIsAskedFor() {
    assumeNoRoutesyncEnvironment();

    assertThat(parse().logFormat()).isEqualTo(dev.routesync.logs.LogFormat.TEXT);
    assertThat(parse("--log-format", "JSON").logFormat())
        .isEqualTo(dev.routesync.logs.LogFormat.JSON);
  }

  @Test
  void namespaceNamesOf63CharactersAreAccepted() {
    String longest = "a".repeat(63);

    assertThat(config("--namespace", longest).watch().namespaces()).containsExactly(longest);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "a=b=c",
        "=x",
        "key in (a",
        "key in a",
        "key notin",
        "",
        "   ",
        "app,",
        ",app",
        "a b",
        "a=b,,c=d",
        "!a=b",
        "a!b",
        "-app",
        "app-",
        "a=-b",
        "Example.com/team=x",
        "example.com/=x"
      })
  void malformedLabelSelectorsAreRejected(String selector) {
    AgentOptions options = parse("--label-selector", selector);

    assertThatThrownBy(options::toConfig)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--label-selector");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "app",
        "!app",
        "! app",
        "a=b,c!=d",
        "a==b",
        "a=",
        "tier in (web, api)",
        "replicas>1",
        "generation < 5",
        "tier in (web,api),!legacy",
        "example.com/team notin (x)",
        "app.kubernetes.io/part-of=shop",
        "mesh-managed=true",
        "Tier_1.x=V-2_b.c",
        " a = b , c in ( x ) "
      })
  void validLabelSelectorsAreAccepted(String selector) {
    assertThat(config("--label-selector", selector).watch().labelSelector())
        .isEqualTo(selector.trim());
  }

  // ---------------------------------------------------------------- through Main

  static Stream<Arguments> badInvocations() {
    return Stream.of(
        Arguments.of(List.of("agent", "--debounce", "banana"), "--debounce"),
        Arguments.of(List.of("agent", "--max-batch", "0"), "--max-batch"),
        Arguments.of(
            List.of("agent", "--debounce", "999999999h", "--max-delay", "999999999h"),
            "--debounce"),
        Arguments.of(List.of("agent", "--resync", "999999999h"), "--resync"),
        Arguments.of(List.of("agent", "--resync", "1ms"), "--resync"),
        Arguments.of(List.of("demo", "--shutdown-timeout", "999999999h"), "--shutdown-timeout"),
        Arguments.of(List.of("agent", "--admin-port", "70000"), "--admin-port"),
        Arguments.of(List.of("agent", "--label-selector", "a=b=c"), "--label-selector"),
        Arguments.of(List.of("agent", "--no-such-flag"), "--no-such-flag"),
        Arguments.of(List.of("agent", "--listen-tcp", "127.0.0.1:0"), "--listen-tcp-insecure"),
        Arguments.of(List.of("demo", "--listen-tcp", "127.0.0.1:0"), "--listen-tcp-insecure"),
        Arguments.of(List.of("demo", "--source", "pods"), "--source"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badInvocations")
  // Only invalid invocations run here; should one ever pass validation, the safety flags below
  // keep it off /var/run and port 9464 and make the agent fail to start, and the timeout stops a
  // demo that did start from hanging the build.
  @Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aBadFlagExitsWithUsageCodeAndOneErrorLine(
      List<String> args, String flag, @TempDir Path tempDir) {
    List<String> invocation = new ArrayList<>(args.subList(0, 1));
    Map<String, String> safety =
        Map.of(
            "--socket",
            tempDir.resolve("routesync.sock").toString(),
            "--admin-port",
            "0",
            "--state-file",
            "",
            "--kubeconfig",
            tempDir.resolve("no-such-kubeconfig").toString());
    safety.forEach(
        (name, value) -> {
          if (!args.contains(name)) {
            invocation.add(name);
            invocation.add(value);
          }
        });
    invocation.addAll(args.subList(1, args.size()));
    StringWriter err = new StringWriter();
    StringWriter out = new StringWriter();
    CommandLine commandLine = Main.commandLine();
    commandLine.setErr(new PrintWriter(err, true));
    commandLine.setOut(new PrintWriter(out, true));

    int exitCode = commandLine.execute(invocation.toArray(String[]::new));

    assertThat(exitCode).isEqualTo(CommandLine.ExitCode.USAGE).isEqualTo(2);
    assertThat(err.toString().lines().toList())
        .singleElement()
        .satisfies(
            line -> {
              assertThat(line).startsWith("routesync: ");
              assertThat(line).contains(flag);
            });
    assertThat(out.toString()).isEmpty();
  }
}
