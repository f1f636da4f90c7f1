package dev.routesync.lint;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** RS001 to RS004, each with the cases that must and must not raise it. */
class RulesTest {

  private static final String MULTI_PORT =
      """
      apiVersion: v1
      kind: Service
      metadata: {name: web, namespace: shop}
      spec:
        selector: {app: web}
        ports:
          - {name: http, port: 80, targetPort: http}
          - {name: metrics, port: 9090, targetPort: metrics}
          - {name: grpc, port: 9000, targetPort: 9001}
          - {name: admin, port: 8081}
          - {name: zero, port: 8082, targetPort: 0}
      ---
      apiVersion: apps/v1
      kind: Deployment
      metadata: {name: web, namespace: shop}
      spec:
        template:
          metadata: {labels: {app: web, tier: front}}
          spec:
            containers:
              - name: app
                ports: [{name: http, containerPort: 8080}, {name: metric, containerPort: 9090}]
      """;

  @Test
  void aMultiPortServiceWithOneBadPortHasOneFinding() {
    LintCli.Result result = LintCli.withStdin(MULTI_PORT);

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.lines())
        .containsExactly(
            "<stdin>:8: RS001 error: Service shop/web port metrics (9090 -> metrics/TCP):"
                + " Deployment shop/web declares no container port named metrics (it declares"
                + " http, metric; did you mean metric?)");
  }

  @Test
  void numericAndOmittedTargetPortsAreNeverFlagged() {
    String manifests =
        """
        apiVersion: v1
        kind: Service
        metadata: {name: web, namespace: shop}
        spec:
          selector: {app: web}
          ports:
            - {name: a, port: 80, targetPort: 8080}
            - {name: b, port: 81}
            - {name: c, port: 82, targetPort: ""}
            - {name: d, port: 53, targetPort: 53, protocol: UDP}
        ---
        apiVersion: v1
        kind: Pod
        metadata: {name: web, namespace: shop, labels: {app: web}}
        spec: {containers: [{name: app, image: x}]}
        """;

    LintCli.Result result = LintCli.withStdin(manifests);

    assertThat(result.exitCode()).isZero();
    assertThat(result.out()).isEmpty();
  }

  @Test
  void aNameWithAnotherProtocolIsRs002() {
    String manifests =
        """
        apiVersion: v1
        kind: Service
        metadata: {name: dns, namespace: shop}
        spec:
          selector: {app: dns}
          ports:
            - {name: dns, port: 53, targetPort: dns, protocol: UDP}
        ---
        apiVersion: apps/v1
        kind: DaemonSet
        metadata: {name: dns, namespace: shop}
        spec:
          template:
            metadata: {labels: {app: dns}}
            spec: {containers: [{name: server, ports: [{name: dns, containerPort: 5353}]}]}
        """;

    LintCli.Result result = LintCli.withStdin(manifests);

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.lines())
        .containsExactly(
            "<stdin>:7: RS002 error: Service shop/dns port dns (53 -> dns/UDP): DaemonSet shop/dns"
                + " declares dns as TCP (container server), but the Service port is UDP: a named"
                + " targetPort must match name and protocol");
  }

  @Test
  void oneFindingPerServicePortAndWorkload() {
    String manifests =
        """
        apiVersion: v1
        kind: Service
        metadata: {name: web, namespace: shop}
        spec:
          selector: {app: web}
          ports: [{name: http, port: 80, targetPort: http}]
        ---
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: web-green, namespace: shop}
        spec:
          template:
            metadata: {labels: {app: web}}
            spec: {containers: [{name: app, ports: [{name: http, containerPort: 8080}]}]}
        ---
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: web-blue, namespace: shop}
        spec:
          template:
            metadata: {labels: {app: web}}
            spec:
              containers:
                - {name: app, ports: [{name: web, containerPort: 8080}]}
                - {name: log, ports: [{containerPort: 9000}]}
        ---
        apiVersion: apps/v1
        kind: StatefulSet
        metadata: {name: web-db, namespace: shop}
        spec:
          template:
            metadata: {labels: {app: web}}
            spec: {containers: [{name: app}]}
        """;

    LintCli.Result result = LintCli.withStdin(manifests);

    assertThat(result.lines())
        .containsExactly(
            "<stdin>:6: RS001 error: Service shop/web port http (80 -> http/TCP): Deployment"
                + " shop/web-blue declares no container port named http (it declares web; did you"
                + " mean web?)",
            "<stdin>:6: RS001 error: Service shop/web port http (80 -> http/TCP): StatefulSet"
                + " shop/web-db declares no container port named http (it declares no named"
                + " ports)");
  }

  @Test
  void aServiceThatSelectsNothingIsRs003UnlessWorkloadsAreExternal() {
    String manifests =
        """
        apiVersion: v1
        kind: Service
        metadata: {name: web, namespace: shop}
        spec:
          selector: {app: web, track: stable}
          ports: [{name: http, port: 80, targetPort: http}]
        ---
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: web, namespace: shop}
        spec:
          template:
            metadata: {labels: {app: web}}
            spec: {containers: [{name: app, ports: [{name: web, containerPort: 8080}]}]}
        """;

    LintCli.Result warned = LintCli.withStdin(manifests);
    LintCli.Result allowed = LintCli.withStdin(manifests, "--allow-external-workloads");

    assertThat(warned.exitCode()).isZero();
    assertThat(warned.lines())
        .containsExactly(
            "<stdin>:5: RS003 warning: Service shop/web selects no workload in these manifests"
                + " (selector app=web,track=stable); pass --allow-external-workloads if its pods are"
                + " deployed elsewhere");
    assertThat(allowed.exitCode()).isZero();
    assertThat(allowed.out()).isEmpty();
  }

  @Test
  void servicesTheControllerDoesNotFillAreIgnored() {
    String manifests =
        """
        apiVersion: v1
        kind: Service
        metadata: {name: manual, namespace: shop}
        spec:
          ports: [{name: http, port: 80, targetPort: http}]
        ---
        apiVersion: v1
        kind: Service
        metadata: {name: external, namespace: shop}
        spec:
          type: ExternalName
          externalName: example.com
          selector: {app: web}
          ports: [{name: http, port: 80, targetPort: http}]
        """;

    LintCli.Result result = LintCli.withStdin(manifests);

    assertThat(result.exitCode()).isZero();
    assertThat(result.out()).isEmpty();
  }

  private static final String SIDECAR_PORT =
      """
      apiVersion: v1
      kind: Service
      metadata: {name: web, namespace: shop}
      spec:
        selector: {app: web}
        ports:
          - {name: http, port: 80, targetPort: http}
          - {name: proxy-metrics, port: 15090, targetPort: envoy-prom}
      ---
      apiVersion: apps/v1
      kind: Deployment
      metadata: {name: web, namespace: shop}
      spec:
        template:
          metadata: {labels: {app: web}}
          spec:
            initContainers:
              - name: proxy
                restartPolicy: Always
                ports: [{name: envoy-prom, containerPort: 15090}]
              - name: migrate
                ports: [{name: http, containerPort: 1}]
            containers:
              - {name: app, ports: [{name: http, containerPort: 8080}]}
      """;

  static Stream<Arguments> kubeVersions() {
    String rs004 =
        "<stdin>:8: RS004 warning: Service shop/web port proxy-metrics (15090 -> envoy-prom/TCP):"
            + " Deployment shop/web declares envoy-prom only in the restartable init container"
            + " proxy, whose ports Kubernetes resolves from 1.32 on (--kube-version %s): its pods"
            + " get no endpoint for this port";
    return Stream.of(
        Arguments.of(List.of(), 0, List.of()),
        Arguments.of(List.of("--kube-version", "1.32"), 0, List.of()),
        Arguments.of(List.of("--kube-version", "v1.33.2"), 0, List.of()),
        Arguments.of(List.of("--kube-version", "1.31"), 0, List.of(rs004.formatted("1.31"))),
        Arguments.of(List.of("--kube-version", "1.29+"), 0, List.of(rs004.formatted("1.29"))),
        Arguments.of(
            List.of("--kube-version", "1.31", "--fail-on", "warning"),
            1,
            List.of(rs004.formatted("1.31"))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("kubeVersions")
  void aSidecarsPortIsRs004BeforeKubernetes132AndNeverAlsoRs001(
      List<String> args, int exitCode, List<String> lines) {
    LintCli.Result result = LintCli.withStdin(SIDECAR_PORT, args.toArray(String[]::new));

    assertThat(result.lines()).containsExactlyElementsOf(lines);
    assertThat(result.exitCode()).isEqualTo(exitCode);
  }

  @Test
  void aPlainInitContainersPortIsNeverSearched() {
    String manifests = SIDECAR_PORT.replace("restartPolicy: Always", "restartPolicy: OnFailure");

    for (String version : List.of("1.31", "1.32")) {
      LintCli.Result result = LintCli.withStdin(manifests, "--kube-version", version);

      assertThat(result.lines())
          .singleElement()
          .asString()
          .startsWith("<stdin>:8: RS001 error: Service shop/web port proxy-metrics");
    }
  }

  @Test
  void objectsWithoutANamespaceTakeTheNamespaceOption() {
    String manifests =
        """
        apiVersion: v1
        kind: Service
        metadata: {name: web, namespace: shop}
        spec:
          selector: {app: web}
          ports: [{name: http, port: 80, targetPort: http}]
        ---
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: web}
        spec:
          template:
            metadata: {labels: {app: web}}
            spec: {containers: [{name: app, ports: [{name: http-api, containerPort: 8080}]}]}
        """;

    LintCli.Result inDefault = LintCli.withStdin(manifests);
    LintCli.Result inShop = LintCli.withStdin(manifests, "--namespace", "shop");
    LintCli.Result shortForm =
        LintCli.withStdin(manifests.replace("namespace: shop", ""), "-n", "x");

    assertThat(inDefault.out()).startsWith("<stdin>:5: RS003 warning: Service shop/web ");
    assertThat(inShop.out())
        .startsWith(
            "<stdin>:6: RS001 error: Service shop/web port http (80 -> http/TCP): Deployment"
                + " shop/web declares");
    assertThat(shortForm.out()).startsWith("<stdin>:6: RS001 error: Service x/web ");
  }

  @Test
  void aRolloutWithAWorkloadRefHasNoTemplateAndSilencesRs003ForWhatItMayServe() {
    String manifests =
        """
        apiVersion: v1
        kind: Service
        metadata: {name: web, namespace: shop}
        spec:
          selector: {app: web}
          ports: [{name: http, port: 80, targetPort: http}]
        ---
        apiVersion: v1
        kind: Service
        metadata: {name: other, namespace: shop}
        spec:
          selector: {app: other}
          ports: [{name: http, port: 80, targetPort: http}]
        ---
        apiVersion: argoproj.io/v1alpha1
        kind: Rollout
        metadata: {name: web, namespace: shop}
        spec:
          selector: {matchLabels: {app: web}}
          workloadRef: {apiVersion: apps/v1, kind: Deployment, name: web-template}
        """;

    LintCli.Result result = LintCli.withStdin(manifests);

    assertThat(result.lines())
        .singleElement()
        .asString()
        .startsWith("<stdin>:12: RS003 warning: Service shop/other ");
  }
}
