package dev.routesync.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * {@code kubectl apply -k daemonset/base}, as the README installs the agent, and its removal. The
 * install is cluster-scoped (a ClusterRole and its binding), so removal waits until the namespace
 * is gone: a re-run, or the next test, then applies to a clean cluster.
 */
final class ShippedInstall {

  static final String NAMESPACE = "routesync";
  static final String SERVICE_ACCOUNT = "routesync";

  /**
   * The only warnings the base may draw: its namespace warns at Pod Security "restricted" on
   * purpose, and the DaemonSet needs hostPath volumes and a root init container (both explained in
   * namespace.yaml and daemonset.yaml). Any other warning (a deprecated API, a dropped field)
   * fails.
   */
  private static final String EXPECTED_WARNING = "Warning: would violate PodSecurity \"restricted";

  private final ControlPlane cluster;

  ShippedInstall(ControlPlane cluster) {
    this.cluster = cluster;
  }

  Path base() {
    return cluster.project().resolve("daemonset/base");
  }

  /** Applies the base with strict server-side field validation; returns kubectl's stdout. */
  String apply() {
    ControlPlane.Result result =
        cluster.kubectlResult("apply", "-k", base().toString(), "--validate=strict");
    assertThat(result.exitCode()).as("kubectl apply -k daemonset/base:\n%s", result).isZero();
    assertThat(warnings(result.stderr()))
        .as("warnings of kubectl apply -k daemonset/base")
        .allMatch(line -> line.startsWith(EXPECTED_WARNING));
    return result.stdout();
  }

  /** Deletes everything the base applies, if present, and waits for the namespace to go. */
  void remove() {
    cluster.kubectl(
        "delete", "-k", base().toString(), "--ignore-not-found", "--wait=true", "--timeout=90s");
  }

  static List<String> warnings(String stderr) {
    return Arrays.stream(stderr.split("\n")).filter(l -> l.startsWith("Warning:")).toList();
  }
}
