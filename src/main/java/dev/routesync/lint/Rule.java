package dev.routesync.lint;

/**
 * The rules, with IDs that never change meaning: CI configurations, SARIF baselines and code
 * scanning's alert history refer to them.
 */
enum Rule {
  RS001(
      "named-target-port-not-found",
      Severity.ERROR,
      "A Service's named targetPort is declared by no container of a workload it selects.",
      "The EndpointSlice controller resolves a named targetPort for each pod: a pod with no container"
          + " port of that name (and protocol) is left out of the port's endpoints, and nothing marks"
          + " it failed: it stays Ready, the rollout succeeds, and the Service loses its endpoints"
          + " as the old pods go. Rename the container port back, or change the Service's"
          + " targetPort, in the same change."),
  RS002(
      "target-port-protocol-mismatch",
      Severity.ERROR,
      "A workload declares a Service's named targetPort with another protocol.",
      "A named targetPort matches a container port by name and protocol together (both default to"
          + " TCP): a port declared as UDP does not serve a TCP Service port of the same name, and"
          + " the pods get no endpoint for it."),
  RS003(
      "service-selects-no-workload",
      Severity.WARNING,
      "A Service's selector matches no pod template in the manifests.",
      "No workload in the linted manifests has the labels the Service selects, in its namespace, so"
          + " its ports could not be checked, and in a cluster with only these objects it has no"
          + " endpoints. If its pods are deployed from other manifests, pass"
          + " --allow-external-workloads."),
  RS004(
      "sidecar-port-needs-1.32",
      Severity.WARNING,
      "A named targetPort is declared only by a restartable init container, before Kubernetes"
          + " 1.32.",
      "Kubernetes 1.32 added the init containers with restartPolicy: Always (sidecars) to the"
          + " search for a named targetPort. On the --kube-version given, older than 1.32, the pods"
          + " get no endpoint for this port.");

  /** Where the rules are described. */
  static final String PROJECT_URI = "https://routesync.dev";

  private final String ruleName;
  private final Severity severity;
  private final String shortDescription;
  private final String fullDescription;

  Rule(String ruleName, Severity severity, String shortDescription, String fullDescription) {
    this.ruleName = ruleName;
    this.severity = severity;
    this.shortDescription = shortDescription;
    this.fullDescription = fullDescription;
  }

  /** {@code RS001}. */
  String id() {
    return name();
  }

  /** {@code named-target-port-not-found}. */
  String ruleName() {
    return ruleName;
  }

  Severity severity() {
    return severity;
  }

  String shortDescription() {
    return shortDescription;
  }

  String fullDescription() {
    return fullDescription;
  }

  /** The rule's section of the lint documentation. */
  String helpUri() {
    return PROJECT_URI + "/lint#" + id().toLowerCase(java.util.Locale.ROOT);
  }
}
