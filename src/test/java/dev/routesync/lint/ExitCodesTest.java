package dev.routesync.lint;

import static dev.routesync.lint.LintCli.FIXTURES;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/** 0 clean, 1 findings at or above --fail-on, 2 usage or unreadable input naming file:line. */
class ExitCodesTest {

  @TempDir Path dir;

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          incident         |         | 0
          incident         | error   | 0
          incident-renamed |         | 1
          incident-renamed | warning | 1
          incident-renamed | none    | 0
          orphan           |         | 0
          orphan           | error   | 0
          orphan           | warning | 1
          orphan           | none    | 0
          """)
  void findingsFailAtOrAboveFailOn(String fixture, String failOn, int exitCode) {
    LintCli.Result result =
        failOn == null
            ? LintCli.run(FIXTURES + "/" + fixture)
            : LintCli.run("--fail-on", failOn, FIXTURES + "/" + fixture);

    assertThat(result.exitCode()).isEqualTo(exitCode);
    if (!fixture.equals("incident")) {
      assertThat(result.out()).as("findings are printed whatever --fail-on says").isNotEmpty();
    }
  }

  static Stream<Arguments> unreadable() {
    String ok = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n";
    return Stream.of(
        Arguments.of(
            "a sequence",
            ok + "---\n- a\n- b\n",
            ":5: a document must be a mapping with apiVersion and kind, not a sequence"),
        Arguments.of(
            "a scalar",
            "\n\nhello\n",
            ":3: a document must be a mapping with apiVersion and kind, not a scalar"),
        Arguments.of("no kind", ok + "---\napiVersion: v1\nmetadata: {}\n", ":5: no kind"),
        Arguments.of("no apiVersion", "kind: Service\n", ":1: no apiVersion"),
        Arguments.of("a kind that is no string", "apiVersion: v1\nkind: [a]\n", ":1: no kind"),
        Arguments.of(
            "a List item without kind",
            "apiVersion: v1\nkind: List\nitems:\n  - " + "apiVersion: v1\n    metadata: {}\n",
            ":4: no kind"),
        Arguments.of(
            "List items that are no sequence",
            "apiVersion: v1\nkind: List\nitems: {a: 1}\n",
            ":3: items must be a sequence"),
        Arguments.of(
            "broken YAML",
            "apiVersion: v1\nkind: Service\nspec: {ports: [1, 2}\n",
            ":3: not valid YAML: "),
        Arguments.of(
            "a duplicate key",
            "apiVersion: v1\nkind: Service\nmetadata: {name: a}\nkind: Pod\n",
            ":4: not valid YAML: while constructing a mapping: found duplicate key kind"),
        Arguments.of(
            "a Service field of the wrong type",
            ok + "---\napiVersion: v1\nkind: Service\nmetadata: {name: a}\nspec: {ports: 80}\n",
            ":5: cannot read Service a: "),
        Arguments.of(
            "a pod template of the wrong type",
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a}\nspec: {template: [1]}\n",
            ":1: cannot read Deployment a: "),
        Arguments.of(
            "an alias bomb",
            """
            apiVersion: v1
            kind: ConfigMap
            a: &a [x, x, x, x, x, x, x, x, x, x]
            b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]
            c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]
            d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]
            e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]
            """,
            ":5: not valid YAML: more than 10 aliases of collections in one document"),
        Arguments.of(
            "a collection that contains itself",
            "apiVersion: v1\nkind: ConfigMap\ndata: &loop {x: *loop}\n",
            ":3: not valid YAML: an alias inside its own anchor (*loop)"),
        Arguments.of(
            "nesting 1,000 deep",
            "apiVersion: v1\nkind: ConfigMap\ndata: " + "[".repeat(1000) + "]".repeat(1000) + "\n",
            ":3: not valid YAML: nested deeper than 100 levels"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("unreadable")
  void unreadableInputIsExit2NamingFileAndLine(String name, String content, String message)
      throws IOException {
    Path file = Files.writeString(dir.resolve("manifest.yaml"), content);

    LintCli.Result fromFile = LintCli.run(file.toString());
    LintCli.Result fromStdin = LintCli.withStdin(content, "-");

    assertThat(fromFile.exitCode()).isEqualTo(2);
    assertThat(fromFile.out()).isEmpty();
    assertThat(fromFile.err()).startsWith("routesync lint: " + file + message).endsWith("\n");
    assertThat(fromFile.err().lines()).hasSize(1);
    assertThat(fromStdin.exitCode()).isEqualTo(2);
    assertThat(fromStdin.err()).startsWith("routesync lint: <stdin>" + message);
  }

  @Test
  void aDocumentOverTenMebibytesIsRefused() throws IOException {
    String big = "x".repeat(1024);
    StringBuilder content = new StringBuilder("apiVersion: v1\nkind: ConfigMap\ndata:\n");
    for (int i = 0; i < 11 * 1024; i++) {
      content.append("  k").append(i).append(": ").append(big).append('\n');
    }
    Path file =
        Files.writeString(
            dir.resolve("big.yaml"), "apiVersion: v1\nkind: ConfigMap\n---\n" + content);

    LintCli.Result result = LintCli.run(file.toString());

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err())
        .isEqualTo("routesync lint: " + file + ":4: a document larger than 10 MiB\n");
  }

  @Test
  void aMissingPathIsExit2() {
    LintCli.Result result =
        LintCli.run(FIXTURES + "/incident", dir.resolve("nope.yaml").toString());

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.out()).isEmpty();
    assertThat(result.err())
        .isEqualTo("routesync lint: " + dir.resolve("nope.yaml") + ": no such file or directory\n");
  }

  @Test
  void aDirectoryWithoutManifestsIsExit2() throws IOException {
    Files.writeString(dir.resolve("notes.txt"), "nothing to lint");

    LintCli.Result result = LintCli.run(dir.toString());

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err())
        .isEqualTo("routesync lint: " + dir + ": no *.yaml, *.yml or *.json files\n");
  }

  @Test
  void bytesThatAreNotUtf8AreExit2() throws IOException {
    Path file = dir.resolve("latin1.yaml");
    Files.write(file, new byte[] {'a', ':', ' ', (byte) 0xE9, '\n'});

    LintCli.Result result = LintCli.run(file.toString());

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err()).isEqualTo("routesync lint: " + file + ": not UTF-8\n");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          -o xml                 | Invalid value for option '--output': expected one of [TEXT, TABLE, JSON, YAML, NAME, SARIF, GITHUB] (case-insensitive) but was 'xml'
          --fail-on fatal        | Invalid value for option '--fail-on': expected one of [ERROR, WARNING, NONE] (case-insensitive) but was 'fatal'
          --kube-version latest  | Invalid value for option '--kube-version': not a Kubernetes version (want MAJOR.MINOR, e.g. 1.32): latest
          -n Shop                | namespace "Shop": must be a DNS-1123 label (lowercase letters, digits and '-', at most 63 characters, starting and ending with a letter or digit)
          - -                    | stdin (-) given more than once
          --nope                 | Unknown option: '--nope'
          """)
  void usageErrorsAreOneLineAndExit2(String args, String message) {
    LintCli.Result result = LintCli.run(args.split(" +"));

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.out()).isEmpty();
    assertThat(result.err())
        .isEqualTo("routesync: " + message + " (see 'routesync lint --help')\n");
  }

  @Test
  void helpPrintsTheRulesAndExitCodes() {
    LintCli.Result result = LintCli.run("--help");

    assertThat(result.exitCode()).isZero();
    assertThat(result.out())
        .contains("Usage: routesync lint")
        .contains("RS001 named-target-port-not-found")
        .contains("RS004 sidecar-port-needs-1.32")
        .contains("--kube-version")
        .contains("Exit codes");
  }
}
