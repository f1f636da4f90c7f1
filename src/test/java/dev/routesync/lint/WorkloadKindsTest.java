package dev.routesync.lint;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every workload kind's pod template is found where that kind keeps it. */
class WorkloadKindsTest {

  private static final String TEMPLATE =
      "{metadata: {labels: {app: web}}, spec: {containers: [{name: app, image: x,"
          + " ports: [{name: http, containerPort: 8080}]}]}}";

  private static final String POD_SPEC =
      "{containers: [{name: app, image: x, ports: [{name: http, containerPort: 8080}]}]}";

  static Stream<Arguments> kinds() {
    return Stream.of(
        Arguments.of(
            "Pod",
            "apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: shop, labels: {app: web}}\n"
                + "spec: "
                + POD_SPEC),
        Arguments.of("Deployment", workload("apps/v1", "Deployment", "template: " + TEMPLATE)),
        Arguments.of("ReplicaSet", workload("apps/v1", "ReplicaSet", "template: " + TEMPLATE)),
        Arguments.of("StatefulSet", workload("apps/v1", "StatefulSet", "template: " + TEMPLATE)),
        Arguments.of("DaemonSet", workload("apps/v1", "DaemonSet", "template: " + TEMPLATE)),
        Arguments.of("Job", workload("batch/v1", "Job", "template: " + TEMPLATE)),
        Arguments.of(
            "ReplicationController",
            workload("v1", "ReplicationController", "template: " + TEMPLATE)),
        Arguments.of(
            "CronJob",
            workload(
                "batch/v1",
                "CronJob",
                "schedule: '* * * * *'\n  jobTemplate: {spec: {template: " + TEMPLATE + "}}")),
        Arguments.of(
            "Rollout", workload("argoproj.io/v1alpha1", "Rollout", "template: " + TEMPLATE)));
  }

  private static String workload(String apiVersion, String kind, String spec) {
    return "apiVersion: "
        + apiVersion
        + "\nkind: "
        + kind
        + "\nmetadata: {name: web, namespace: shop}\nspec:\n  "
        + spec
        + "\n";
  }

  private static String service(String targetPort) {
    return """
        apiVersion: v1
        kind: Service
        metadata: {name: web, namespace: shop}
        spec:
          selector: {app: web}
          ports:
            - {name: http, port: 80, targetPort: %s}
        ---
        """
        .formatted(targetPort);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("kinds")
  void aDeclaredPortIsClean(String kind, String workload) {
    LintCli.Result result = LintCli.withStdin(service("http") + workload);

    assertThat(result.out()).isEmpty();
    assertThat(result.exitCode()).isZero();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("kinds")
  void anUndeclaredPortIsRs001NamingTheKind(String kind, String workload) {
    LintCli.Result result = LintCli.withStdin(service("web") + workload);

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.out())
        .isEqualTo(
            "<stdin>:7: RS001 error: Service shop/web port http (80 -> web/TCP): "
                + kind
                + " shop/web declares no container port named web (it declares http; did you mean"
                + " http?)\n");
  }
}
