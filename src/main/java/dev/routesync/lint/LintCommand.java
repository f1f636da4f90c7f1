package dev.routesync.lint;

import dev.routesync.rules.KubeVersion;
import dev.routesync.table.InvalidNameException;
import dev.routesync.table.KubernetesNames;
import java.io.InputStream;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.ExitCode;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code routesync lint [PATH|-]...}: the seed's incident caught before merge. Reads manifests
 * (files, directories, or {@code helm template} / {@code kustomize build} piped in), pairs each
 * Service with the pod templates it selects, and checks each port the way the EndpointSlice
 * controller will resolve it. No cluster is needed.
 */
@Command(
    name = "lint",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Check Kubernetes manifests, before they are applied, for Services whose pods will get no"
          + " endpoints: a named targetPort that no container of the selected workloads declares"
          + " (or declares with another protocol), and Services that select nothing.",
      "Reads files and directories (recursively: *.yaml, *.yml, *.json) or, with - or no PATH,"
          + " standard input: multi-document YAML, JSON, kind: List, the output of helm template"
          + " or kustomize build."
    },
    footerHeading = "%nRules:%n",
    footer = {
      "  RS001 named-target-port-not-found    error",
      "  RS002 target-port-protocol-mismatch  error",
      "  RS003 service-selects-no-workload    warning (--allow-external-workloads: off)",
      "  RS004 sidecar-port-needs-1.32        warning (with --kube-version below 1.32)",
      "",
      "Exit codes: 0 no finding at or above --fail-on; 1 findings at or above --fail-on;"
          + " 2 bad usage, or input that cannot be read (the message names file and line)."
    })
public final class LintCommand implements Callable<Integer> {

  /** Standard input; tests replace it. */
  Supplier<InputStream> stdin = () -> System.in;

  @Spec CommandSpec spec;

  @Parameters(
      paramLabel = "PATH",
      arity = "0..*",
      description = "Files or directories to read; - (or none) for standard input.")
  List<String> paths = new ArrayList<>();

  @Option(
      names = {"-o", "--output"},
      paramLabel = "FORMAT",
      defaultValue = "text",
      description =
          "${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}; table is the text; sarif: SARIF"
              + " 2.1.0; github: workflow annotations; name: service/NAME per Service with a"
              + " finding).")
  LintFormat output;

  @Option(
      names = {"-n", "--namespace"},
      paramLabel = "NAMESPACE",
      defaultValue = "default",
      description =
          "The namespace of objects whose manifest names none (default: ${DEFAULT-VALUE}).")
  String namespace;

  @Option(
      names = "--kube-version",
      paramLabel = "VERSION",
      defaultValue = "1.32",
      converter = KubeVersionConverter.class,
      description =
          "The cluster's Kubernetes version (default: ${DEFAULT-VALUE}, the first release that"
              + " resolves named ports of sidecar containers). Older versions turn such ports into"
              + " RS004.")
  KubeVersion kubeVersion;

  @Option(
      names = "--fail-on",
      paramLabel = "SEVERITY",
      defaultValue = "error",
      description =
          "Exit 1 on findings of this severity or worse: ${COMPLETION-CANDIDATES} (default:"
              + " ${DEFAULT-VALUE}).")
  FailOn failOn;

  @Option(
      names = "--allow-external-workloads",
      arity = "0..1",
      fallbackValue = "true",
      description =
          "The Services' pods may come from manifests not given here: no RS003 for a Service that"
              + " selects none of these workloads.")
  boolean allowExternalWorkloads;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    String validNamespace = validNamespace();
    if (paths.stream().filter("-"::equals).count() > 1) {
      throw new ParameterException(spec.commandLine(), "stdin (-) given more than once");
    }
    try {
      // Each object is mapped as it is read, and its YAML dropped: one input's documents, let
      // alone every input's, are never all held at once.
      LintedObjects.Collector collector = new LintedObjects.Collector(validNamespace);
      for (Input input : Inputs.of(paths, stdin)) {
        ManifestReader.read(input, collector::add);
      }
      LintedObjects objects = collector.objects();
      List<Finding> findings = new Linter(kubeVersion, allowExternalWorkloads).lint(objects);
      switch (output) {
        case TEXT, TABLE -> {
          out.print(TextReport.render(findings));
          err.println("routesync lint: " + TextReport.summary(findings, objects));
        }
        case JSON -> out.print(JsonReport.render(findings));
        case YAML -> out.print(JsonReport.renderYaml(findings));
        case NAME ->
            findings.stream()
                .map(finding -> "service/" + finding.service())
                .distinct()
                .forEach(out::println);
        case SARIF -> out.print(SarifReport.render(findings, version()));
        case GITHUB -> out.print(GithubReport.render(findings));
      }
      boolean failed = findings.stream().anyMatch(f -> failOn.fails(f.severity()));
      return failed ? ExitCode.SOFTWARE : ExitCode.OK;
    } catch (LintInputException e) {
      err.println("routesync lint: " + e.getMessage());
      return ExitCode.USAGE;
    } finally {
      out.flush();
      err.flush();
    }
  }

  private String validNamespace() {
    try {
      return KubernetesNames.requireNamespace(namespace);
    } catch (InvalidNameException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage(), e);
    }
  }

  private static String version() {
    String version = LintCommand.class.getPackage().getImplementationVersion();
    return version == null ? "dev" : version;
  }
}
