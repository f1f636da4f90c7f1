package dev.routesync.lint;

import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One finding: a rule broken by a Service port for one workload it selects (RS001, RS002, RS004),
 * or by a Service as a whole (RS003).
 *
 * @param rule the rule
 * @param file the Service's file
 * @param line the line of the field at fault (the port's targetPort; the selector for RS003)
 * @param namespace the Service's namespace ({@code --namespace} when the manifest has none)
 * @param service the Service's name
 * @param port the Service port, empty for RS003
 * @param workload the workload checked, empty for RS003
 * @param message one line for people
 * @param declared the port names the workload declares, in the order the search looks at them
 * @param closest the declared name most like the wanted one (RS001)
 */
record Finding(
    Rule rule,
    String file,
    int line,
    String namespace,
    String service,
    Optional<PortRef> port,
    Optional<WorkloadRef> workload,
    String message,
    List<String> declared,
    Optional<String> closest) {

  /** The order of every format's output: by file, line, rule, then message. */
  static final Comparator<Finding> ORDER =
      Comparator.comparing(Finding::file)
          .thenComparingInt(Finding::line)
          .thenComparing(Finding::rule)
          .thenComparing(Finding::message);

  Finding {
    Objects.requireNonNull(rule, "rule");
    declared = List.copyOf(declared);
  }

  Severity severity() {
    return rule.severity();
  }

  /**
   * A Service port as a finding names it.
   *
   * @param name the port's name, {@code ""} when unnamed
   * @param port the Service's port number
   * @param targetPort the targetPort as written (a name, or a number as text)
   * @param protocol TCP when omitted
   */
  record PortRef(String name, int port, String targetPort, String protocol) {}

  /**
   * The workload whose pod template was checked, and where it is.
   *
   * @param kind {@code Deployment}, {@code CronJob}, {@code Rollout}, ...
   * @param namespace its namespace
   * @param name its name
   * @param file its file
   * @param line the line where it starts
   */
  record WorkloadRef(String kind, String namespace, String name, String file, int line) {

    /** {@code Deployment shop/quote}. */
    String describe() {
      return kind + " " + namespace + "/" + name;
    }
  }
}
