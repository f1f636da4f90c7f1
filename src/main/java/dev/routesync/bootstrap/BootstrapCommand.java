package dev.routesync.bootstrap;

import ch.qos.logback.classic.Level;
import dev.routesync.config.AgentConfig;
import dev.routesync.kube.KubeClients;
import dev.routesync.units.Durations;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code routesync bootstrap}: prints (or writes) the xDS bootstrap that points a proxyless gRPC
 * client, or with {@code --envoy} an Envoy, at the agent on this node.
 */
@Command(
    name = "bootstrap",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Print the xDS bootstrap that points a gRPC client or an Envoy at this node's agent.",
      "For gRPC's xds:/// resolver: the agent's Unix socket as the ADS server, node.id = this"
          + " node's name, node.locality.zone = the node's "
          + Locality.ZONE_LABEL
          + " label (read from the API server) or --zone. With --envoy, an Envoy bootstrap"
          + " instead.",
      "A client then targets xds:///<service>.<namespace>:<port> (or <svc>.<ns>.svc,"
          + " <svc>.<ns>.svc.cluster.local, each with an optional :<port>, the Service port's"
          + " number or name; grpc-js needs the number), with GRPC_XDS_BOOTSTRAP=<the file>.",
      "When the zone cannot be read, the bootstrap has no zone and a warning goes to stderr."
    },
    exitCodeListHeading = "Exit codes:%n",
    exitCodeList = {
      "0:written (perhaps without a zone)",
      "1:cannot write --output-file",
      "2:usage"
    })
public final class BootstrapCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(
      names = "--node-name",
      defaultValue = "${env:ROUTESYNC_NODE_NAME:-${env:NODE_NAME:-}}",
      paramLabel = "NAME",
      description =
          "This node's name (downward API spec.nodeName), the bootstrap's node.id. Env:"
              + " ROUTESYNC_NODE_NAME or NODE_NAME")
  String nodeName;

  @Option(
      names = "--socket",
      defaultValue = "${env:ROUTESYNC_SOCKET:-" + AgentConfig.DEFAULT_SOCKET + "}",
      paramLabel = "PATH",
      description =
          "The agent's Unix socket, as the agent's --socket (default: ${DEFAULT-VALUE}). Env:"
              + " ROUTESYNC_SOCKET")
  Path socket;

  @Option(
      names = "--zone",
      paramLabel = "ZONE",
      description =
          "node.locality.zone, instead of reading the node's label; --zone= (empty) leaves the"
              + " zone out without asking the API server.")
  Optional<String> zone;

  @Option(
      names = "--kubeconfig",
      defaultValue = "${env:ROUTESYNC_KUBECONFIG:-}",
      converter = OptionalPathConverter.class,
      paramLabel = "PATH",
      description =
          "For reading the zone label: kubeconfig file; empty for in-cluster credentials, then"
              + " KUBECONFIG, then ~/.kube/config. Env: ROUTESYNC_KUBECONFIG")
  Optional<Path> kubeconfig;

  @Option(
      names = "--request-timeout",
      defaultValue = "5s",
      paramLabel = "DURATION",
      description = "Bound on reading the zone label (default: ${DEFAULT-VALUE}).")
  Duration requestTimeout;

  @Option(
      names = "--output-file",
      paramLabel = "FILE",
      description =
          "Write the bootstrap to FILE (atomically, mode 0644) instead of stdout; for an init"
              + " container.")
  Path outputFile;

  /**
   * The old spelling of {@code --output-file}, hidden and kept for one release with a warning: init
   * containers already run {@code bootstrap --output FILE}, and an upgrade must not break them.
   * Every other command's {@code -o} is a format; this one will be too.
   */
  @Option(
      names = {"-o", "--output"},
      paramLabel = "FILE",
      hidden = true)
  Path deprecatedOutput;

  @Option(
      names = "--envoy",
      arity = "0..1",
      fallbackValue = "true",
      description =
          "Print an Envoy bootstrap instead: a static cluster 'routesync' on the socket (HTTP/2"
              + " over a pipe address), and CDS and LDS over ADS.")
  boolean envoy;

  @Option(
      names = "--cluster",
      defaultValue = "routesync",
      paramLabel = "NAME",
      description =
          "With --envoy: node.cluster, which Envoy requires; your workload's name"
              + " (default: ${DEFAULT-VALUE}).")
  String cluster;

  @Option(
      names = "--delta",
      arity = "0..1",
      defaultValue = "true",
      fallbackValue = "true",
      description =
          "With --envoy: incremental ADS (DELTA_GRPC), the default, or --delta=false for state of"
              + " the world (GRPC). Envoy subscribes to every cluster: with delta, a change to one"
              + " Service sends that one, not all of them. gRPC clients speak state of the world"
              + " only; their bootstrap has no such choice.")
  boolean delta;

  /**
   * The old spelling of {@code --delta=false}, hidden and kept with a warning: every boolean flag
   * is {@code --flag} or {@code --flag=false}, as kubectl's, and bootstraps already written with
   * {@code --no-delta} must keep working.
   */
  @Option(names = "--no-delta", hidden = true)
  boolean deprecatedNoDelta;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (deprecatedOutput != null) {
      if (outputFile != null) {
        throw usage("give --output-file, not both it and its old spelling -o/--output", null);
      }
      boolean longForm =
          spec.commandLine().getParseResult().originalArgs().stream()
              .anyMatch(arg -> arg.startsWith("--output") && !arg.startsWith("--output-file"));
      String flag = longForm ? "--output" : "-o";
      err.println("routesync bootstrap: " + flag + " FILE is deprecated, use --output-file FILE");
    }
    if (deprecatedNoDelta) {
      err.println("routesync bootstrap: --no-delta is deprecated, use --delta=false");
      delta = false;
    }
    String node = requireNodeName();
    requireEnvoyOnlyFlags();
    try {
      Durations.requireWithin(
          "--request-timeout", requestTimeout, Duration.ofMillis(100), Duration.ofMinutes(1));
    } catch (IllegalArgumentException e) {
      throw usage(e.getMessage(), e);
    }
    Locality locality = givenZone(); // checks --zone before any call to the API server
    try {
      render(node, locality == null ? Locality.unknown() : locality); // checks the other flags
      if (locality == null) {
        ZoneLookup.Answer answer = lookUpZone(node);
        answer
            .problem()
            .ifPresent(
                problem ->
                    err.println(
                        "routesync bootstrap: warning: no zone in node.locality: "
                            + problem
                            + " (give --zone to set it)"));
        locality = answer.locality();
      }
    } catch (IllegalArgumentException e) {
      throw usage(e.getMessage(), e);
    }
    String json = render(node, locality);
    Path output = outputFile == null ? deprecatedOutput : outputFile;
    if (output == null) {
      out.print(json);
      out.flush();
      return 0;
    }
    Path file = output.toAbsolutePath().normalize();
    try {
      BootstrapFile.write(file, json);
    } catch (IOException e) {
      err.println("routesync bootstrap: cannot write " + file + ": " + describe(e));
      err.flush();
      return 1;
    }
    err.println(
        "routesync bootstrap: wrote "
            + file
            + " (node.id "
            + node
            + ", zone "
            + locality.zone().orElse("unknown")
            + ")");
    err.flush();
    return 0;
  }

  private String render(String node, Locality locality) {
    return envoy
        ? new EnvoyBootstrap(socket, node, cluster.trim(), locality, delta).json()
        : new GrpcBootstrap(socket, node, locality).json();
  }

  private String requireNodeName() {
    String node = nodeName == null ? "" : nodeName.trim();
    if (node.isEmpty()) {
      throw usage(
          "no node name: give --node-name, or set NODE_NAME from the downward API"
              + " (fieldRef spec.nodeName)",
          null);
    }
    try {
      return dev.routesync.table.KubernetesNames.requireNodeName(node);
    } catch (IllegalArgumentException e) {
      throw usage("--node-name: " + e.getMessage(), e);
    }
  }

  private void requireEnvoyOnlyFlags() {
    if (envoy) {
      return;
    }
    for (String flag : new String[] {"--cluster", "--delta", "--no-delta"}) {
      if (spec.commandLine().getParseResult().hasMatchedOption(flag)) {
        throw usage(flag + " applies to --envoy only", null);
      }
    }
  }

  /** The zone from --zone: a value, none at all (--zone=), or null when it must be read. */
  private Locality givenZone() {
    if (zone.isEmpty()) {
      return null;
    }
    String value = zone.get().trim();
    try {
      return value.isEmpty() ? Locality.unknown() : Locality.zone(value);
    } catch (IllegalArgumentException e) {
      throw usage("--zone: " + e.getMessage(), e);
    }
  }

  private ZoneLookup.Answer lookUpZone(String node) {
    muteClientLogs();
    Config config;
    try {
      config = KubeClients.load(kubeconfig);
    } catch (RuntimeException e) {
      return ZoneLookup.Answer.none("no credentials: " + e.getMessage());
    }
    int millis = (int) requestTimeout.toMillis();
    Config tuned =
        new ConfigBuilder(config)
            .withRequestTimeout(millis)
            .withConnectionTimeout(millis)
            // One try: an init container must not hold its pod back for fabric8's retries.
            .withRequestRetryBackoffLimit(0)
            .build();
    try (KubernetesClient client = new KubernetesClientBuilder().withConfig(tuned).build()) {
      return ZoneLookup.of(client, node);
    }
  }

  private ParameterException usage(String message, Throwable cause) {
    return cause == null
        ? new ParameterException(spec.commandLine(), message)
        : new ParameterException(spec.commandLine(), message, cause);
  }

  private static String describe(IOException e) {
    String message = e.getMessage();
    return e.getClass().getSimpleName() + (message == null ? "" : ": " + message);
  }

  // The warning names the failure in one line; fabric8's own log lines would repeat it, with a
  // stack trace, on the init container's log.
  private static void muteClientLogs() {
    if (LoggerFactory.getLogger("io.fabric8.kubernetes.client")
        instanceof ch.qos.logback.classic.Logger logger) {
      logger.setLevel(Level.OFF);
    }
  }

  /** A path, or none for a blank value (as the agent's --kubeconfig). */
  static final class OptionalPathConverter implements ITypeConverter<Path> {
    @Override
    public Path convert(String text) {
      return text.isBlank() ? null : Path.of(text.trim());
    }
  }
}
