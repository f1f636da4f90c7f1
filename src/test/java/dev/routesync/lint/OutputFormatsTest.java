package dev.routesync.lint;

import static dev.routesync.lint.LintCli.FIXTURES;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** text, json, sarif and github print the same findings for their readers. */
class OutputFormatsTest {

  /** One error (the rename) and one warning (a Service that selects nothing), in two files. */
  private static final String[] TWO_FINDINGS = {
    FIXTURES + "/incident-renamed", FIXTURES + "/orphan/service.yaml"
  };

  private static final String RS001_MESSAGE =
      "Service shop/quote port http (80 -> http/TCP): Deployment shop/quote declares no container"
          + " port named http (it declares http-api; did you mean http-api?)";
  private static final String RS003_MESSAGE =
      "Service shop/orphan selects no workload in these manifests (selector app=orphan); pass"
          + " --allow-external-workloads if its pods are deployed elsewhere";

  @Test
  void textIsOneLinePerFindingSortedByFileAndLine() {
    LintCli.Result result = LintCli.run(TWO_FINDINGS);

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.lines())
        .containsExactly(
            FIXTURES + "/incident-renamed/service.yaml:15: RS001 error: " + RS001_MESSAGE,
            FIXTURES + "/orphan/service.yaml:8: RS003 warning: " + RS003_MESSAGE);
    assertThat(result.err()).isEqualTo("routesync lint: 1 error, 1 warning\n");
  }

  @Test
  void yamlIsTheJsonDocumentAndNameListsTheServicesWithFindings() {
    LintCli.Result json = LintCli.run(concat("-o", "json", TWO_FINDINGS));
    LintCli.Result yaml = LintCli.run(concat("-o", "yaml", TWO_FINDINGS));
    LintCli.Result name = LintCli.run(concat("-o", "name", TWO_FINDINGS));

    assertThat(yaml.exitCode()).as(yaml.err()).isEqualTo(1);
    assertThat(io.fabric8.kubernetes.client.utils.Serialization.unmarshal(yaml.out(), Map.class))
        .isEqualTo(new io.vertx.core.json.JsonObject(json.out()).getMap());
    assertThat(name.exitCode()).isEqualTo(1);
    assertThat(name.out()).isEqualTo("service/quote\nservice/orphan\n");
  }

  @Test
  void jsonHasTheDocumentedSchema() {
    LintCli.Result result = LintCli.run(concat("-o", "json", TWO_FINDINGS));

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.err()).isEmpty();
    JsonNode root = Json.parse(result.out());
    assertThat(names(root)).containsExactly("findings", "errors", "warnings");
    assertThat(root.path("errors").asInt()).isEqualTo(1);
    assertThat(root.path("warnings").asInt()).isEqualTo(1);
    JsonNode rs001 = root.path("findings").path(0);
    assertThat(names(rs001))
        .containsExactly(
            "rule",
            "name",
            "severity",
            "file",
            "line",
            "namespace",
            "service",
            "port",
            "workload",
            "message",
            "declared",
            "closest");
    assertThat(rs001.path("name").asString()).isEqualTo("named-target-port-not-found");
    assertThat(rs001.path("severity").asString()).isEqualTo("error");
    assertThat(rs001.path("file").asString())
        .isEqualTo(FIXTURES + "/incident-renamed/service.yaml");
    assertThat(rs001.path("line").asInt()).isEqualTo(15);
    assertThat(rs001.path("message").asString()).isEqualTo(RS001_MESSAGE);
    JsonNode port = rs001.path("port");
    assertThat(names(port)).containsExactly("name", "port", "targetPort", "protocol");
    assertThat(port.path("port").asInt()).isEqualTo(80);
    assertThat(port.path("targetPort").asString()).isEqualTo("http");
    assertThat(port.path("protocol").asString()).isEqualTo("TCP");
    JsonNode workload = rs001.path("workload");
    assertThat(names(workload)).containsExactly("kind", "namespace", "name", "file", "line");
    assertThat(workload.path("line").asInt()).isEqualTo(2);

    JsonNode rs003 = root.path("findings").path(1);
    assertThat(rs003.path("rule").asString()).isEqualTo("RS003");
    assertThat(rs003.path("severity").asString()).isEqualTo("warning");
    assertThat(rs003.path("port").isNull()).isTrue();
    assertThat(rs003.path("workload").isNull()).isTrue();
    assertThat(rs003.path("declared").isEmpty()).isTrue();
    assertThat(rs003.path("closest").isNull()).isTrue();
  }

  @Test
  void jsonOfACleanRunIsAnEmptyList() {
    LintCli.Result result = LintCli.run("-o", "json", FIXTURES + "/incident");

    assertThat(result.exitCode()).isZero();
    assertThat(Json.parse(result.out()).path("findings").isEmpty()).isTrue();
    assertThat(Json.parse(result.out()).path("findings").isArray()).isTrue();
  }

  @Test
  void sarifHasEveryField210RequiresAndCodeScanningReads() {
    LintCli.Result result = LintCli.run(concat("-o", "sarif", TWO_FINDINGS));

    assertThat(result.exitCode()).isEqualTo(1);
    JsonNode log = Json.parse(result.out());
    assertThat(log.path("$schema").asString())
        .isEqualTo("https://json.schemastore.org/sarif-2.1.0.json");
    assertThat(log.path("version").asString()).isEqualTo("2.1.0");
    assertThat(log.path("runs").size()).isEqualTo(1);
    JsonNode run = log.path("runs").path(0);
    JsonNode driver = run.path("tool").path("driver");
    assertThat(driver.path("name").asString()).isEqualTo("routesync");
    assertThat(driver.path("informationUri").asString()).startsWith("https://");
    List<String> ruleIds = new ArrayList<>();
    for (JsonNode rule : driver.path("rules")) {
      ruleIds.add(rule.path("id").asString());
      assertThat(rule.path("name").asString()).matches("[a-z0-9.-]+");
      assertThat(rule.path("shortDescription").path("text").asString()).isNotBlank();
      assertThat(rule.path("fullDescription").path("text").asString()).isNotBlank();
      assertThat(rule.path("defaultConfiguration").path("level").asString())
          .isIn("error", "warning");
      assertThat(rule.path("helpUri").asString()).startsWith("https://");
    }
    assertThat(ruleIds).containsExactly("RS001", "RS002", "RS003", "RS004");
    assertThat(driver.path("rules").path(2).path("defaultConfiguration").path("level").asString())
        .isEqualTo("warning");

    JsonNode results = run.path("results");
    assertThat(results.size()).isEqualTo(2);
    JsonNode first = results.path(0);
    assertThat(first.path("ruleId").asString()).isEqualTo("RS001");
    assertThat(first.path("ruleIndex").asInt()).isZero();
    assertThat(first.path("level").asString()).isEqualTo("error");
    assertThat(first.path("message").path("text").asString()).isEqualTo(RS001_MESSAGE);
    JsonNode location = first.path("locations").path(0).path("physicalLocation");
    assertThat(location.path("artifactLocation").path("uri").asString())
        .isEqualTo(FIXTURES + "/incident-renamed/service.yaml");
    assertThat(location.path("region").path("startLine").asInt()).isEqualTo(15);
    JsonNode related = first.path("relatedLocations").path(0);
    assertThat(related.path("physicalLocation").path("artifactLocation").path("uri").asString())
        .isEqualTo(FIXTURES + "/incident-renamed/deployment.yaml");
    assertThat(related.path("message").path("text").asString()).isEqualTo("Deployment shop/quote");
    JsonNode second = results.path(1);
    assertThat(second.path("ruleId").asString()).isEqualTo("RS003");
    assertThat(second.path("ruleIndex").asInt()).isEqualTo(2);
    assertThat(second.path("level").asString()).isEqualTo("warning");
  }

  @Test
  void sarifUrisAreUriReferencesEvenForStdin() {
    LintCli.Result result =
        LintCli.withStdin(
            "apiVersion: v1\nkind: Service\nmetadata: {name: a}\nspec: {selector: {app: a}}\n",
            "-o",
            "sarif");

    JsonNode location =
        Json.parse(result.out())
            .path("runs")
            .path(0)
            .path("results")
            .path(0)
            .path("locations")
            .path(0)
            .path("physicalLocation");
    assertThat(location.path("artifactLocation").path("uri").asString()).isEqualTo("%3Cstdin%3E");
    assertThat(location.path("region").path("startLine").asInt()).isEqualTo(4);
  }

  @Test
  void githubWorkflowCommandsAnnotateTheFileAndLine() {
    LintCli.Result result = LintCli.run(concat("-o", "github", TWO_FINDINGS));

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.lines())
        .containsExactly(
            "::error file="
                + FIXTURES
                + "/incident-renamed/service.yaml,line=15,title=RS001"
                + " named-target-port-not-found::"
                + RS001_MESSAGE,
            "::warning file="
                + FIXTURES
                + "/orphan/service.yaml,line=8,title=RS003 service-selects-no-workload::"
                + RS003_MESSAGE);
  }

  @Test
  void githubEscapesAndPutsStdinsLocationIntoTheMessage() {
    LintCli.Result result =
        LintCli.withStdin(
            "apiVersion: v1\nkind: Service\nmetadata: {name: a}\nspec: {selector: {app: \"50%\"}}\n",
            "-o", "github");

    assertThat(result.out())
        .isEqualTo(
            "::warning title=RS003 service-selects-no-workload::<stdin>:4: Service default/a"
                + " selects no workload in these manifests (selector app=50%25); pass"
                + " --allow-external-workloads if its pods are deployed elsewhere\n");
  }

  private static List<String> names(JsonNode object) {
    List<String> names = new ArrayList<>();
    object.propertyNames().forEach(names::add);
    return names;
  }

  private static String[] concat(String a, String b, String[] rest) {
    List<String> all = new ArrayList<>(List.of(a, b));
    all.addAll(List.of(rest));
    return all.toArray(String[]::new);
  }
}
