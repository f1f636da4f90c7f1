package dev.routesync.gate;

import ch.qos.logback.classic.Level;
import dev.routesync.kube.KubeClients;
import dev.routesync.kube.LabelSelectors;
import dev.routesync.table.InvalidNameException;
import dev.routesync.table.KubernetesNames;
import dev.routesync.units.Durations;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.vertx.core.json.JsonObject;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code routesync gate}: after a rollout, waits until every pod the Services select and should
 * serve is a ready endpoint of each of their ports, and fails at once when one never can be.
 */
@Command(
    name = "gate",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Check that a live cluster routes to every Ready pod, for a deploy pipeline.",
      "Every Ready pod a Service selects must be a ready endpoint of each of its ports in the"
          + " EndpointSlices, without a break for --settle. Fails at once when a pod can never be"
          + " one (its container ports do not match the Service's named targetPort or protocol),"
          + " while the old pods still serve; otherwise waits, watching, until --timeout. Progress"
          + " goes to stderr, the verdict to stdout."
    },
    exitCodeListHeading = "Exit codes:%n",
    exitCodeList = {
      "0:pass",
      "1:fail (a certain reason, or the timeout)",
      "2:usage",
      "3:cannot evaluate (API server unreachable, RBAC forbidden, a named Service not found)"
    })
public final class GateCommand implements Callable<Integer> {

  /** The gate's own verdict line when it cannot evaluate; the exit code of that case. */
  static final int CANNOT_EVALUATE = Verdict.Result.ERROR.exitCode();

  private static final Duration MAX_TIMEOUT = Duration.ofHours(24);
  private static final Duration MAX_SETTLE = Duration.ofHours(1);
  // How long past --timeout the command waits for the gate's own verdict before giving up.
  private static final Duration VERDICT_MARGIN = Duration.ofSeconds(10);

  @Spec CommandSpec spec;

  @Option(
      names = {"-n", "--namespace"},
      required = true,
      paramLabel = "NAMESPACE",
      description = "The Services' namespace.")
  String namespace;

  @Option(
      names = "--service",
      split = ",",
      paramLabel = "NAME",
      description = "A Service to check (repeat, or separate with commas).")
  List<String> services = new ArrayList<>();

  @Option(
      names = {"-l", "--selector"},
      paramLabel = "SELECTOR",
      description = "Check the Services with these labels (applied by the API server).")
  String selector;

  @Option(
      names = "--timeout",
      defaultValue = "5m",
      paramLabel = "DURATION",
      description = "Fail when not passed by then (default: ${DEFAULT-VALUE}).")
  Duration timeout;

  @Option(
      names = "--settle",
      defaultValue = "10s",
      paramLabel = "DURATION",
      description =
          "How long the condition must hold without a break; a break restarts the clock"
              + " (default: ${DEFAULT-VALUE}).")
  Duration settle;

  @Option(
      names = "--allow-empty",
      arity = "0..1",
      fallbackValue = "true",
      description = "Accept a Service that selects no pod that should serve.")
  boolean allowEmpty;

  @Option(
      names = {"-o", "--output"},
      defaultValue = "text",
      paramLabel = "FORMAT",
      description =
          "${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}; table is the text; name:"
              + " service/NAME per Service checked).")
  Format output;

  @Option(
      names = "--kubeconfig",
      paramLabel = "PATH",
      description = "kubeconfig file (default: in-cluster, KUBECONFIG, ~/.kube/config).")
  Path kubeconfig;

  @Option(
      names = "--request-timeout",
      defaultValue = "10s",
      paramLabel = "DURATION",
      description = "Bound on each call to the API server (default: ${DEFAULT-VALUE}).")
  Duration requestTimeout;

  /** {@code -o}: the other commands' words; picocli reads them in any case. */
  enum Format {
    TEXT,
    TABLE,
    JSON,
    YAML,
    NAME;

    @Override
    public String toString() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  @Override
  public Integer call() {
    Targets targets = targets();
    GateSettings settings = settings();
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    muteClientLogs();
    Verdict verdict = evaluate(targets, settings, err);
    err.println("gate: " + verdict.summary());
    err.flush();
    out.print(render(verdict));
    out.flush();
    return verdict.result().exitCode();
  }

  private String render(Verdict verdict) {
    return switch (output) {
      case TEXT, TABLE -> VerdictText.render(verdict);
      case JSON -> VerdictJson.render(verdict);
      case YAML -> Serialization.asYaml(new JsonObject(VerdictJson.render(verdict)).getMap());
      case NAME ->
          verdict
              .evaluation()
              .map(
                  evaluation ->
                      evaluation.services().stream()
                          .map(service -> "service/" + service.name() + "\n")
                          .collect(Collectors.joining()))
              .orElse("");
    };
  }

  private Verdict evaluate(Targets targets, GateSettings settings, PrintWriter err) {
    Config config;
    try {
      config = KubeClients.load(Optional.ofNullable(kubeconfig));
    } catch (RuntimeException e) {
      return Verdict.cannotEvaluate("cannot evaluate: " + e.getMessage(), 0);
    }
    Config tuned =
        new ConfigBuilder(config)
            .withRequestTimeout((int) requestTimeout.toMillis())
            .withConnectionTimeout((int) requestTimeout.toMillis())
            // A refused or failed call is reported at once; the gate's own timeout is the retry.
            .withRequestRetryBackoffLimit(0)
            .build();
    err.println(
        "gate: watching pods, services and endpointslices in namespace "
            + targets.namespace()
            + " ("
            + targets.describe()
            + "; timeout "
            + Durations.format(settings.timeout())
            + ", settle "
            + Durations.format(settings.settle())
            + ")");
    err.flush();
    try (KubernetesClient client = new KubernetesClientBuilder().withConfig(tuned).build()) {
      return GateSession.run(
          client,
          targets,
          settings,
          requestTimeout,
          settings.timeout().plus(VERDICT_MARGIN),
          line -> {
            err.println(line);
            err.flush();
          });
    }
  }

  private Targets targets() {
    String validNamespace;
    try {
      validNamespace = KubernetesNames.requireNamespace(namespace.trim());
    } catch (InvalidNameException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage(), e);
    }
    List<String> names = services.stream().map(String::trim).filter(s -> !s.isEmpty()).toList();
    boolean bySelector = selector != null;
    if (names.isEmpty() == !bySelector) {
      throw new ParameterException(
          spec.commandLine(),
          bySelector
              ? "give --service or -l, not both"
              : "name the Services to check: --service NAME... or -l SELECTOR");
    }
    if (bySelector) {
      if (selector.isBlank()) {
        throw new ParameterException(spec.commandLine(), "-l must not be empty");
      }
      try {
        // A typo is a usage error here, not a 400 from the API server (which would be exit 3).
        LabelSelectors.validate("-l", selector.trim());
      } catch (IllegalArgumentException e) {
        throw new ParameterException(spec.commandLine(), e.getMessage(), e);
      }
      return Targets.selected(validNamespace, selector.trim());
    }
    for (String name : names) {
      try {
        KubernetesNames.requireServiceName(name);
      } catch (InvalidNameException e) {
        throw new ParameterException(spec.commandLine(), e.getMessage(), e);
      }
    }
    return Targets.named(validNamespace, names);
  }

  private GateSettings settings() {
    try {
      Durations.requireWithin("--timeout", timeout, Duration.ofMillis(1), MAX_TIMEOUT);
      Durations.requireWithin("--settle", settle, Duration.ZERO, MAX_SETTLE);
      Durations.requireWithin(
          "--request-timeout", requestTimeout, Duration.ofMillis(100), Duration.ofMinutes(5));
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage(), e);
    }
    return new GateSettings(timeout, settle, allowEmpty);
  }

  // The gate reports every failed call itself, in one line naming the verb and the resource;
  // fabric8's own warnings about the same failure would only repeat it, with a stack trace.
  private static void muteClientLogs() {
    if (LoggerFactory.getLogger("io.fabric8.kubernetes.client")
        instanceof ch.qos.logback.classic.Logger logger) {
      logger.setLevel(Level.OFF);
    }
  }
}
