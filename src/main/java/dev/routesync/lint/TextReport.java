package dev.routesync.lint;

import java.util.List;

/** {@code file:line: RS001 error: message}, the form compilers use, which editors can jump to. */
final class TextReport {

  private TextReport() {}

  static String render(List<Finding> findings) {
    StringBuilder out = new StringBuilder();
    for (Finding finding : findings) {
      out.append(finding.file())
          .append(':')
          .append(finding.line())
          .append(": ")
          .append(finding.rule().id())
          .append(' ')
          .append(finding.severity().label())
          .append(": ")
          .append(finding.message())
          .append('\n');
    }
    return out.toString();
  }

  /** The last line, on stderr: what was found, or what was checked when nothing was. */
  static String summary(List<Finding> findings, LintedObjects objects) {
    if (findings.isEmpty()) {
      int workloads = objects.workloads().size() + objects.opaque().size();
      return "no findings ("
          + count(objects.services().size(), "Service")
          + ", "
          + count(workloads, "workload")
          + ")";
    }
    long errors = findings.stream().filter(f -> f.severity() == Severity.ERROR).count();
    return count(errors, "error") + ", " + count(findings.size() - errors, "warning");
  }

  private static String count(long n, String noun) {
    return n + " " + noun + (n == 1 ? "" : "s");
  }
}
