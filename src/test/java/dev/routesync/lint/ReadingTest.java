package dev.routesync.lint;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What lint reads: files, directories, stdin, multi-document YAML, JSON and lists. */
class ReadingTest {

  private static final String BAD_SERVICE =
      """
      apiVersion: v1
      kind: Service
      metadata: {name: quote, namespace: shop}
      spec:
        selector: {app: quote}
        ports:
          - name: http
            port: 80
            targetPort: http
      """;

  private static final String RENAMED_DEPLOYMENT =
      """
      apiVersion: apps/v1
      kind: Deployment
      metadata: {name: quote, namespace: shop}
      spec:
        template:
          metadata: {labels: {app: quote}}
          spec:
            containers:
              - name: quote
                ports: [{name: http-api, containerPort: 8080}]
      """;

  @TempDir Path dir;

  @Test
  void helmTemplateOutputOnStdinWithSourceCommentsAndEmptyDocuments() {
    String stream =
        "---\n# Source: quote/templates/empty.yaml\n---\n# Source: quote/templates/service.yaml\n"
            + BAD_SERVICE
            + "---\n---\n# Source: quote/templates/deployment.yaml\n"
            + RENAMED_DEPLOYMENT;

    LintCli.Result result = LintCli.withStdin(stream, "-");

    assertThat(result.exitCode()).isEqualTo(1);
    // The targetPort is on line 13 of the stream.
    assertThat(result.lines())
        .singleElement()
        .asString()
        .startsWith("<stdin>:13: RS001 error: Service shop/quote port http");
  }

  @Test
  void noArgumentMeansStdin() {
    LintCli.Result result = LintCli.withStdin(BAD_SERVICE + "---\n" + RENAMED_DEPLOYMENT);

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.out()).startsWith("<stdin>:9: RS001 ");
  }

  @Test
  void aKindListsItemsAreReadWithTheirOwnLines() {
    String list =
        """
        apiVersion: v1
        kind: List
        items:
          - apiVersion: v1
            kind: Service
            metadata: {name: quote, namespace: shop}
            spec:
              selector: {app: quote}
              ports:
                - {name: http, port: 80, targetPort: http}
          - apiVersion: apps/v1
            kind: Deployment
            metadata: {name: quote, namespace: shop}
            spec:
              template:
                metadata: {labels: {app: quote}}
                spec: {containers: [{name: q, ports: [{name: http-api, containerPort: 1}]}]}
        """;

    LintCli.Result result = LintCli.withStdin(list);

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.out()).startsWith("<stdin>:10: RS001 ");
  }

  @Test
  void aTypedListTakesItsItemsKindFromItsOwn() {
    String list =
        """
        apiVersion: v1
        kind: ServiceList
        items:
          - metadata: {name: quote, namespace: shop}
            spec:
              selector: {app: quote}
              ports: [{name: http, port: 80, targetPort: http}]
        """;

    LintCli.Result result = LintCli.withStdin(list);

    assertThat(result.out()).startsWith("<stdin>:6: RS003 warning: Service shop/quote ");
  }

  @Test
  void jsonFilesWithTabsAndAJsonList() throws IOException {
    Files.writeString(
        dir.resolve("service.json"),
        "{\n\t\"apiVersion\": \"v1\",\n\t\"kind\": \"Service\",\n"
            + "\t\"metadata\": {\"name\": \"quote\", \"namespace\": \"shop\"},\n"
            + "\t\"spec\": {\n\t\t\"selector\": {\"app\": \"quote\"},\n"
            + "\t\t\"ports\": [\n\t\t\t{\"name\": \"http\", \"port\": 80,\n"
            + "\t\t\t \"targetPort\": \"http\"}\n\t\t]\n\t}\n}\n");
    Files.writeString(
        dir.resolve("deployment.json"),
        "{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": [{\"apiVersion\": \"apps/v1\","
            + " \"kind\": \"Deployment\", \"metadata\": {\"name\": \"quote\", \"namespace\":"
            + " \"shop\"}, \"spec\": {\"template\": {\"metadata\": {\"labels\": {\"app\":"
            + " \"quote\"}}, \"spec\": {\"containers\": [{\"name\": \"q\", \"ports\": [{\"name\":"
            + " \"http-api\", \"containerPort\": 8080}]}]}}}}]}\n");

    LintCli.Result result = LintCli.run(dir.toString());

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.out()).startsWith(dir.resolve("service.json") + ":9: RS001 ");
  }

  @Test
  void directoriesAreReadRecursivelyInSortedOrderAndOnlyManifestFiles() throws IOException {
    Path b = Files.createDirectories(dir.resolve("b"));
    Path a = Files.createDirectories(dir.resolve("a/deeper"));
    Files.writeString(b.resolve("service.yml"), BAD_SERVICE.replace("quote", "second"));
    Files.writeString(a.resolve("service.yaml"), BAD_SERVICE);
    Files.writeString(dir.resolve("README.md"), "# not a manifest: [unclosed");
    Files.writeString(dir.resolve("values.txt"), "::: not yaml");

    LintCli.Result result = LintCli.run(dir.toString());

    assertThat(result.exitCode()).isZero();
    assertThat(result.lines())
        .containsExactly(
            dir.resolve("a/deeper/service.yaml")
                + ":5: RS003 warning: Service shop/quote selects"
                + " no workload in these manifests (selector app=quote); pass"
                + " --allow-external-workloads if its pods are deployed elsewhere",
            dir.resolve("b/service.yml")
                + ":5: RS003 warning: Service shop/second selects"
                + " no workload in these manifests (selector app=second); pass"
                + " --allow-external-workloads if its pods are deployed elsewhere");
  }

  @Test
  void unknownKindsAreIgnored() {
    String stream =
        """
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: quote}
        data: {ports: "not a port"}
        ---
        apiVersion: serving.knative.dev/v1
        kind: Service
        metadata: {name: quote}
        spec: {template: {spec: {containers: [{image: x}]}}}
        ---
        apiVersion: example.com/v1
        kind: Deployment
        metadata: {name: quote}
        spec: {anything: [1, 2]}
        """;

    LintCli.Result result = LintCli.withStdin(stream);

    assertThat(result.exitCode()).isZero();
    assertThat(result.out()).isEmpty();
    assertThat(result.err()).isEqualTo("routesync lint: no findings (0 Services, 0 workloads)\n");
  }
}
