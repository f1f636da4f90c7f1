package dev.routesync.kube.translate;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** What a warning says is wrong with an external name: the fault, never the name itself. */
class ExternalNamesTest {

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "<script>alert(1)</script> | it holds '<' at character 1",
        "*.example.com             | it holds '*' at character 1",
        "db.Example.com            | it holds 'E' at character 4",
        "db example.com            | it holds U+0020 at character 3",
        "db..example.com           | its label 2 is empty",
        "db-.example.com           | its label 1 starts or ends with '-'",
      })
  void theProblemNamesTheFaultWithoutRepeatingTheName(String name, String problem) {
    assertThat(ExternalNames.problem(name))
        .hasValueSatisfying(text -> assertThat(text).startsWith(problem));
  }

  @ParameterizedTest
  @CsvSource({"db.example.com", "db.example.com.", "a"})
  void aDnsNameHasNoProblem(String name) {
    assertThat(ExternalNames.problem(name)).isEmpty();
  }
}
