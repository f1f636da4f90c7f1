package dev.routesync.lint;

import static dev.routesync.lint.LintCli.FIXTURES;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The seed's incident, before merge: the Service in one file, the Deployment in another, and a pull
 * request that renamed the container port from {@code http} to {@code http-api}.
 */
class IncidentLintTest {

  @Test
  void theManifestsBeforeTheRenameLintClean() {
    LintCli.Result result = LintCli.run(FIXTURES + "/incident");

    assertThat(result.exitCode()).isZero();
    assertThat(result.out()).isEmpty();
    assertThat(result.err()).isEqualTo("routesync lint: no findings (1 Service, 1 workload)\n");
  }

  @Test
  void theRenameIsRs001AtTheServicesTargetPort() {
    LintCli.Result result = LintCli.run(FIXTURES + "/incident-renamed");

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.out())
        .isEqualTo(
            FIXTURES
                + "/incident-renamed/service.yaml:15: RS001 error: Service shop/quote port http"
                + " (80 -> http/TCP): Deployment shop/quote declares no container port named http"
                + " (it declares http-api; did you mean http-api?)\n");
    assertThat(result.err()).isEqualTo("routesync lint: 1 error, 0 warnings\n");
  }

  @Test
  void theTwoFilesNamedOneByOneLintTheSame() {
    LintCli.Result result =
        LintCli.run(
            FIXTURES + "/incident-renamed/deployment.yaml",
            FIXTURES + "/incident-renamed/service.yaml");

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.out()).startsWith(FIXTURES + "/incident-renamed/service.yaml:15: RS001 ");
  }

  @Test
  void theServiceAloneHasNoWorkloadToCheckAndWarns() {
    LintCli.Result result = LintCli.run(FIXTURES + "/incident-renamed/service.yaml");

    assertThat(result.exitCode()).isZero();
    assertThat(result.out())
        .startsWith(FIXTURES + "/incident-renamed/service.yaml:10: RS003 warning: ");
  }

  @Test
  void jsonNamesTheServiceThePortTheWorkloadAndTheNames() {
    LintCli.Result result = LintCli.run("-o", "json", FIXTURES + "/incident-renamed");

    assertThat(result.exitCode()).isEqualTo(1);
    JsonNode finding = Json.parse(result.out()).path("findings").path(0);
    assertThat(finding.path("rule").asString()).isEqualTo("RS001");
    assertThat(finding.path("namespace").asString()).isEqualTo("shop");
    assertThat(finding.path("service").asString()).isEqualTo("quote");
    assertThat(finding.path("port").path("name").asString()).isEqualTo("http");
    assertThat(finding.path("workload").path("kind").asString()).isEqualTo("Deployment");
    assertThat(finding.path("workload").path("name").asString()).isEqualTo("quote");
    assertThat(finding.path("workload").path("file").asString())
        .isEqualTo(FIXTURES + "/incident-renamed/deployment.yaml");
    assertThat(Json.strings(finding.path("declared"))).containsExactly("http-api");
    assertThat(finding.path("closest").asString()).isEqualTo("http-api");
  }
}
