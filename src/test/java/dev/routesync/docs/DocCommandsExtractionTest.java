package dev.routesync.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.docs.DocCommands.DocCommand;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The convention by which DocCommandsTest reads commands out of a page (see DocCommands). */
class DocCommandsExtractionTest {

  private static final Path PAGE = Path.of("page.md");

  private static List<String> texts(String... lines) {
    return DocCommands.of(PAGE, List.of(lines)).stream().map(DocCommand::text).toList();
  }

  @Test
  void everyLineOfAShellBlockIsACommandWithoutComments() {
    assertThat(
            texts(
                "```sh",
                "# a comment",
                "mvn -B verify     # everything",
                "",
                "kubectl label namespace routesync \\",
                "  a=b \\",
                "  c=d",
                "```"))
        .containsExactly("mvn -B verify", "kubectl label namespace routesync a=b c=d");
  }

  @Test
  void promptedLinesAreCommandsAndTheRestTheirOutput() {
    List<DocCommand> commands =
        DocCommands.of(
            PAGE,
            List.of(
                "```console",
                "$ routesync get services -n shop",
                "NAMESPACE   NAME",
                "# stale: a header line of output",
                "$ curl -s http://127.0.0.1:9902/x",
                "{\"status\":400}",
                "```"));
    assertThat(commands)
        .extracting(DocCommand::text)
        .containsExactly("routesync get services -n shop", "curl -s http://127.0.0.1:9902/x");
    assertThat(commands.get(1).output()).containsExactly("{\"status\":400}");
    assertThat(commands.get(0).line()).isEqualTo(2);
  }

  @Test
  void unlabelledBlocksHoldCommandsOnlyAfterAPrompt() {
    assertThat(texts("```", "routesync get services", "API server --> sidecars", "```")).isEmpty();
    assertThat(texts("```", "$ routesync get clients", "PROTOCOL UID", "```"))
        .containsExactly("routesync get clients");
    assertThat(texts("```json", "$ not a command", "```")).isEmpty();
  }

  @Test
  void aHereDocumentIsInputNotCommands() {
    assertThat(
            texts(
                "```sh",
                "cat > values.yaml <<'VALUES'",
                "image:",
                "  tag: 1",
                "VALUES",
                "helm install x chart -f values.yaml",
                "```"))
        .containsExactly("cat > values.yaml <<'VALUES'", "helm install x chart -f values.yaml");
  }

  @Test
  void commandLinesSplitIntoSimpleCommands() {
    assertThat(DocCommands.simpleCommands("mvn -B install && (cd benchmarks && mvn -B package)"))
        .containsExactly(
            List.of("mvn", "-B", "install"),
            List.of("cd", "benchmarks"),
            List.of("mvn", "-B", "package"));
    assertThat(DocCommands.simpleCommands("eval \"$(scripts/control-plane.sh env)\""))
        .containsExactly(List.of("scripts/control-plane.sh", "env"));
    assertThat(DocCommands.simpleCommands("helm template . | routesync lint -o github -"))
        .containsExactly(
            List.of("helm", "template", "."), List.of("routesync", "lint", "-o", "github", "-"));
    assertThat(DocCommands.simpleCommands("grpcurl -d '{\"namespace\":\"shop\"}' sock"))
        .containsExactly(List.of("grpcurl", "-d", "{\"namespace\":\"shop\"}", "sock"));
  }
}
