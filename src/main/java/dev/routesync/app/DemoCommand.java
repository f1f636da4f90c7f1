package dev.routesync.app;

import dev.routesync.Agent;
import dev.routesync.config.AgentConfig;
import dev.routesync.config.AgentOptions;
import dev.routesync.demo.DemoCluster;
import dev.routesync.logs.ConsoleFormat;
import dev.routesync.state.StateSettings;
import dev.routesync.units.Durations;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.logging.Level;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code routesync demo}: the agent against an embedded pretend cluster; no cluster needed. */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = {
      "Run the agent against an embedded mock API server with churning demo Services.",
      "Takes the agent's flags; --kubeconfig is ignored (the demo writes its own), the socket"
          + " defaults to a temporary path instead of "
          + AgentConfig.DEFAULT_SOCKET
          + ", and the state file to one in the same temporary directory instead of "
          + StateSettings.DEFAULT_FILE_TEXT
          + "."
    })
public final class DemoCommand implements Callable<Integer> {

  // The JUL logger of the mock server must be held strongly, or its level is forgotten.
  private static final java.util.logging.Logger MOCK_LOG =
      java.util.logging.Logger.getLogger("io.fabric8.mockwebserver");

  @Spec CommandSpec spec;

  @Mixin AgentOptions options;

  @Option(
      names = "--churn-every",
      defaultValue = "3s",
      converter = ChurnConverter.class,
      paramLabel = "DURATION",
      description = "Time between churn steps, at least 100ms (default: ${DEFAULT-VALUE}).")
  Duration churnEvery;

  /**
   * A duration with its unit ({@code 3s}, {@code 250ms}), as every other duration flag; a bare
   * number stays milliseconds, as this flag took before it had units.
   */
  static final class ChurnConverter implements CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String text) {
      String trimmed = text.trim();
      if (!trimmed.isEmpty()
          && trimmed.length() <= 12 // no overflow: larger is no churn interval anyway
          && trimmed.chars().allMatch(Character::isDigit)) {
        return Duration.ofMillis(Long.parseLong(trimmed));
      }
      try {
        return Durations.parse(trimmed);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException(e.getMessage());
      }
    }
  }

  @Override
  public Integer call() {
    MOCK_LOG.setLevel(Level.WARNING);
    AgentConfig config = AgentCommand.validated(spec, options);
    ConsoleFormat.apply(options.logFormat());
    if (churnEvery.toMillis() < 100) {
      throw new ParameterException(spec.commandLine(), "--churn-every must be at least 100ms");
    }
    DemoWorkDir workDir = DemoWorkDir.create();
    if (config.socket().toString().equals(AgentConfig.DEFAULT_SOCKET)) {
      config = config.withSocket(workDir.path().resolve("routesync.sock"));
    }
    // The demo persists like the agent, into its own directory: never into the host's state
    // directory, which belongs to a real agent. (The directory goes when the demo stops; to see a
    // warm start, give --state-file a path of your own and run the demo twice.)
    if (config
        .state()
        .file()
        .map(Path::toString)
        .orElse("")
        .equals(StateSettings.DEFAULT_FILE_TEXT)) {
      config =
          config.withState(
              new StateSettings(
                  Optional.of(workDir.path().resolve("state").resolve("table.bin")),
                  config.state().flush()));
    }
    DemoCluster cluster = DemoCluster.start();
    Path kubeconfig;
    try {
      kubeconfig = cluster.writeKubeconfig(workDir.path());
    } catch (IOException e) {
      cluster.close();
      workDir.close();
      throw new UncheckedIOException(e);
    }
    // The demo's node is in zone-a (its Services' pods are spread over zone-a and zone-b), so the
    // zoned Service shows a topology decision; --zone still overrides.
    // The demo's node (unless --node-name says otherwise) runs a pod of the seeded incident, so
    // the drift detector has something to show.
    AgentConfig demoConfig =
        config
            .withKubeconfig(kubeconfig)
            .withZone(config.zone().orElse(DEMO_ZONE))
            .withNodeName(config.nodeName().isEmpty() ? DEMO_NODE : config.nodeName());
    Agent agent;
    try {
      agent = Agent.start(demoConfig).toCompletionStage().toCompletableFuture().join();
    } catch (RuntimeException e) {
      cluster.close();
      workDir.close();
      PrintWriter err = spec.commandLine().getErr();
      int code = AgentRunner.startFailed(e, err);
      if (adminPortTaken(e)) {
        // Most often another demo or a local agent: the demo needs no metrics port of its own.
        err.println(
            "routesync demo: the admin port "
                + demoConfig.adminPort()
                + " is taken; pass --admin-port 0 to run the demo without it.");
        err.flush();
      }
      return code;
    }
    cluster.startChurn(churnEvery.toMillis());
    System.out.println("routesync demo: syncing with the mock API server...");
    System.out.flush();
    // "serving" only once the table is there: before, every answer is "not synced yet".
    agent.initialSync().onSuccess(synced -> printHowTo(demoConfig, cluster, agent));
    return AgentRunner.awaitShutdown(
        () -> {
          cluster.stopChurn();
          // The directory goes last: the agent has released the socket and lock by then.
          return agent.stop().andThen(done -> cluster.close()).andThen(done -> workDir.close());
        },
        demoConfig.shutdownTimeout());
  }

  /** The zone the demo's agent is in unless --zone says otherwise. */
  static final String DEMO_ZONE = "zone-a";

  /** The node the demo's agent runs on unless --node-name says otherwise. */
  static final String DEMO_NODE = "node-a";

  /** Whether {@code error} says the admin listener could not bind its port (it names itself). */
  private static boolean adminPortTaken(Throwable error) {
    for (Throwable cause = error; cause != null; cause = cause.getCause()) {
      String message = String.valueOf(cause.getMessage());
      if (message.startsWith("admin listener ") && message.endsWith("address already in use")) {
        return true;
      }
    }
    return false;
  }

  private static void printHowTo(AgentConfig config, DemoCluster cluster, Agent agent) {
    String socket = config.socket().toAbsolutePath().toString();
    StringBuilder text = new StringBuilder();
    text.append("\nroutesync demo is serving on ").append(socket).append('\n');
    text.append("mock API server: ").append(cluster.url()).append(" (namespace shop)\n\n");
    text.append("Use the CLI against it (routesync is java -jar target/routesync-demo.jar):\n");
    text.append("  export ROUTESYNC_SOCKET=").append(socket).append('\n');
    text.append("  routesync get services\n");
    text.append("  routesync get endpoints checkout -n shop\n");
    text.append("  routesync get endpoints search -n shop -o wide")
        .append("    # trafficDistribution PreferClose: this node's topology decision\n");
    text.append("  routesync watch -n shop    # Ctrl-C to stop watching\n");
    text.append("  routesync get drift")
        .append("    # shop/quote-new-1: Ready, renamed its port, gets no traffic\n\n");
    text.append("Or the HTTP API:\n");
    text.append("  curl -s --unix-socket ")
        .append(socket)
        .append(" http://localhost/v1/services\n");
    text.append("  curl -s --unix-socket ")
        .append(socket)
        .append(" http://localhost/v1/services/shop/checkout\n");
    if (agent.adminPort() > 0) {
      text.append("  curl -s http://127.0.0.1:")
          .append(agent.adminPort())
          .append("/metrics | grep ^routesync_\n");
    }
    if (agent.debugPort() > 0) {
      text.append("\nStatus page: http://")
          .append(hostForUrl(config.debug().host()))
          .append(':')
          .append(agent.debugPort())
          .append("/status\n");
    }
    text.append("\nCtrl-C to stop.\n");
    System.out.println(text);
    System.out.flush();
  }

  private static String hostForUrl(String host) {
    return host.indexOf(':') >= 0 ? "[" + host + "]" : host;
  }
}
