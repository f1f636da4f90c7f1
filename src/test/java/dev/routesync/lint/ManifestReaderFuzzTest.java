package dev.routesync.lint;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.routesync.rules.KubeVersion;
import java.io.ByteArrayInputStream;
import java.util.List;

/**
 * {@code routesync lint} from the bytes of one input to every report format: each input gives
 * findings, or a {@link LintInputException} (the command's exit 2, one line naming the file), never
 * another exception, and never more memory than the input's size justifies (the fuzz runs give the
 * JVM a small heap, so an alias or nesting bomb shows as an OutOfMemoryError or a stack overflow).
 * A normal build replays {@code ManifestReaderFuzzTestInputs/}; {@code scripts/fuzz.sh} fuzzes.
 */
class ManifestReaderFuzzTest {

  @FuzzTest
  // One entry a line in libFuzzer's dictionary file: no entry may hold a newline.
  @DictionaryEntries({
    "apiVersion: v1",
    "kind: Service",
    "kind: Deployment",
    "apiVersion: apps/v1",
    "kind: List",
    "items:",
    "---",
    "targetPort: http",
    "containerPort: 8080",
    "selector:",
    "template:",
    "&a ",
    "*a",
    "<<: *a",
    "!!binary ",
    "? ",
  })
  void manifests(byte[] bytes) {
    // The file name picks the reading (".json" reads tabs as spaces): JSON when it looks like it.
    String name = looksLikeJson(bytes) ? "fuzz.json" : "fuzz.yaml";
    Input input = new Input(name, () -> new ByteArrayInputStream(bytes));
    List<Finding> findings;
    LintedObjects objects;
    try {
      List<Manifest> manifests = ManifestReader.read(input);
      objects = LintedObjects.of(manifests, "default");
      findings = new Linter(KubeVersion.parse("1.31"), false).lint(objects);
    } catch (LintInputException e) {
      assertThat(e.getMessage()).startsWith(name + ":").doesNotContain("\n");
      return;
    }
    // Every format renders whatever was found.
    assertThat(TextReport.render(findings)).isNotNull();
    assertThat(TextReport.summary(findings, objects)).isNotNull();
    assertThat(JsonReport.render(findings)).isNotNull();
    assertThat(SarifReport.render(findings, "fuzz")).isNotNull();
    assertThat(GithubReport.render(findings)).isNotNull();
  }

  private static boolean looksLikeJson(byte[] bytes) {
    for (byte b : bytes) {
      if (b != ' ' && b != '\t' && b != '\n' && b != '\r') {
        return b == '{' || b == '[';
      }
    }
    return false;
  }
}
