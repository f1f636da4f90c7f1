package dev.routesync.lint;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * A name longer than Kubernetes allows is refused (exit 2), not repeated into every finding. Before
 * the check, 2,000 ports naming one 16 KiB anchor as their {@code targetPort} (an 81 KB input; the
 * reader bounds aliases of collections, not of scalars) made a 100 MB JSON report in 10 s.
 */
class NameLengthsTest {

  private static final String POD =
      "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: {app: web}}\n"
          + "spec: {containers: [{name: c}]}\n";

  @Test
  void anAliasedLongTargetPortIsRefusedNotRepeated() {
    StringBuilder yaml = new StringBuilder();
    yaml.append("apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  annotations:\n    n: &a ")
        .append("x".repeat(16 * 1024))
        .append("\nspec:\n  selector: {app: web}\n  ports:\n");
    for (int i = 0; i < 2000; i++) {
      yaml.append("  - {port: ").append(i + 1).append(", targetPort: *a}\n");
    }
    yaml.append(POD);

    LintCli.Result result = LintCli.withStdin(yaml.toString(), "-o", "json", "-");

    assertThat(result.exitCode()).as(result.err()).isEqualTo(2);
    assertThat(result.out()).isEmpty();
    assertThat(result.err().strip())
        .isEqualTo(
            "routesync lint: <stdin>:1: cannot read Service: spec.ports[0].targetPort has 16384"
                + " characters, and Kubernetes allows at most 15");
  }

  @Test
  void aLongContainerPortNameIsRefused() {
    String yaml =
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  template:\n"
            + "    spec:\n      containers:\n      - name: c\n        ports: [{name: "
            + "p".repeat(16)
            + ", containerPort: 80}]\n";

    LintCli.Result result = LintCli.withStdin(yaml, "-");

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err())
        .contains("cannot read Deployment: containers[0].ports[0].name has 16 characters");
  }

  @Test
  void namesAtTheLimitAreLinted() {
    String yaml =
        "apiVersion: v1\nkind: Service\nmetadata: {name: "
            + "s".repeat(63)
            + "}\nspec: {selector: {app: web}, ports: [{port: 80, targetPort: "
            + "t".repeat(15)
            + "}]}\n"
            + POD;

    LintCli.Result result = LintCli.withStdin(yaml, "-");

    assertThat(result.exitCode()).as(result.err()).isEqualTo(1);
    assertThat(result.out()).contains("RS001").contains("t".repeat(15));
  }
}
