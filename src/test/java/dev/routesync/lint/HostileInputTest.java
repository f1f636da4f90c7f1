package dev.routesync.lint;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.RandomAccessFile;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hostile input costs a bounded amount of memory and time: each limit of {@link ReadLimits} is
 * refused with one line naming it (exit 2), and documents of kinds lint does not read are not kept.
 * The inputs are generated here, at the smallest size that crosses each limit.
 */
class HostileInputTest {

  private static final String HEADER = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n";

  @TempDir Path dir;

  @Test
  @Timeout(value = 20, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aFileOverTheCapIsRefusedBeforeAnyOfItIsRead() throws IOException {
    // 200 MiB of holes: a reader would stop at the first NUL ("special characters are not
    // allowed"); only a stat sees the size.
    Path file = dir.resolve("huge.yaml");
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
      raf.setLength(200L * 1024 * 1024);
    }

    LintCli.Result result = LintCli.run(file.toString());

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err()).isEqualTo("routesync lint: " + file + ": larger than 64 MiB\n");
  }

  @Test
  @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void standardInputOverTheCapIsCountedAndRefused() {
    // Comments only: the cheapest bytes to parse, so the count is what stops it.
    byte[] line = "# a comment line of the endless stream on standard input\n".getBytes(UTF8);
    InputStream endless =
        new InputStream() {
          private long at;

          @Override
          public int read() {
            return line[(int) (at++ % line.length)];
          }

          @Override
          public int read(byte[] buffer, int offset, int length) {
            for (int i = 0; i < length; i++) {
              buffer[offset + i] = line[(int) (at++ % line.length)];
            }
            return length;
          }
        };

    LintCli.Result result = LintCli.withStdin(() -> endless, "-");

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err()).isEqualTo("routesync lint: <stdin>: larger than 64 MiB\n");
  }

  @Test
  void aDocumentOverTheNodeLimitIsRefusedNamingTheLimit() throws IOException {
    // Two bytes a node, 2 MB: far inside the 10 MiB document size.
    Path file = dir.resolve("flat.yaml");
    try (Writer out = Files.newBufferedWriter(file)) {
      out.write(HEADER + "---\n" + HEADER + "data: [");
      for (int i = 0; i < 1_000_000; i++) {
        out.write("1,");
      }
      out.write("1]\n");
    }

    LintCli.Result result = LintCli.run(file.toString());

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.out()).isEmpty();
    assertThat(result.err())
        .isEqualTo("routesync lint: " + file + ":5: a document of more than 1000000 YAML nodes\n");
  }

  @Test
  void anInputOverTheNodeLimitIsRefusedNamingTheLimit() throws IOException {
    // Documents each under the document limit, together over the input's.
    Path file = dir.resolve("many.yaml");
    int documents = 9; // 500,000 nodes each: 4,500,000
    try (Writer out = Files.newBufferedWriter(file)) {
      for (int d = 0; d < documents; d++) {
        out.write("---\n" + HEADER + "data: [");
        for (int i = 0; i < 500_000; i++) {
          out.write("1,");
        }
        out.write("1]\n");
      }
    }

    LintCli.Result result = LintCli.run(file.toString());

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err())
        .startsWith("routesync lint: " + file + ":")
        .endsWith(": more than 4000000 YAML nodes in one input\n");
    assertThat(result.err().lines()).hasSize(1);
  }

  @Test
  void onlyTheKindsLintReadsAreKept() throws LintInputException {
    String stream =
        HEADER
            + "data: {a: '1'}\n---\n"
            + "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n---\n"
            + "apiVersion: v1\nkind: Service\nmetadata: {name: quote}\nspec: {selector: {a: b}}\n"
            + "---\n"
            + "apiVersion: example.com/v1\nkind: Deployment\nmetadata: {name: crd}\n---\n"
            + "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: quote}\n---\n"
            + "apiVersion: v1\nkind: List\nitems:\n"
            + "  - {apiVersion: v1, kind: ConfigMap, metadata: {name: in-list}}\n"
            + "  - {apiVersion: v1, kind: Pod, metadata: {name: in-list}}\n";

    List<Manifest> kept = ManifestReader.read(new Input("s.yaml", () -> bytes(stream)));

    assertThat(kept)
        .extracting(m -> m.kind() + " " + m.name())
        .containsExactly("Service quote", "Deployment quote", "Pod in-list");
  }

  @Test
  void aDocumentOfAnotherKindIsNotBuiltPastItsTopLevel() throws LintInputException {
    // Built, the data below would fail on its duplicate key; skipped, it is only parsed. The
    // top level is still built: a second kind is still refused.
    String configMap = HEADER + "data: {a: '1', a: '2'}\n";
    String twoKinds = HEADER + "data: {a: '1'}\nkind: Service\n";

    List<Manifest> kept = ManifestReader.read(new Input("cm.yaml", () -> bytes(configMap)));
    LintCli.Result result = LintCli.withStdin(twoKinds);

    assertThat(kept).isEmpty();
    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err()).contains(":5: not valid YAML: ").contains("duplicate key kind");
  }

  @Test
  void ofAKindLintReadsOnlyTheFieldsItReadsAreBuilt() throws LintInputException {
    String stream =
        "apiVersion: v1\nkind: Service\n"
            + "metadata: {name: quote, annotations: {a: '1'}, labels: {b: '2'}}\n"
            + "spec: {selector: {app: quote}, ports: [{port: 80}], sessionAffinity: None}\n"
            + "status: {loadBalancer: {}}\n";

    Manifest service = ManifestReader.read(new Input("s.yaml", () -> bytes(stream))).get(0);

    // A field not built stands as null: its key is kept, so a duplicate is still found.
    java.util.Map<String, Object> expected = new java.util.HashMap<>();
    expected.put("apiVersion", "v1");
    expected.put("kind", "Service");
    expected.put("metadata", mapOf("name", "quote", "annotations", null, "labels", null));
    expected.put(
        "spec",
        mapOf(
            "selector",
            java.util.Map.of("app", "quote"),
            "ports",
            List.of(java.util.Map.of("port", 80)),
            "sessionAffinity",
            null));
    expected.put("status", null);
    assertThat(service.object()).isEqualTo(expected);
  }

  private static java.util.Map<String, Object> mapOf(Object... pairs) {
    java.util.Map<String, Object> map = new java.util.HashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      map.put((String) pairs[i], pairs[i + 1]);
    }
    return map;
  }

  @Test
  void anAliasToAnAnchorInAFieldNotBuiltStillResolves() {
    String stream =
        """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: quote, labels: &labels {app: quote}}
        spec:
          template:
            metadata: {labels: *labels}
            spec: {containers: [{name: q, ports: [{name: http-api, containerPort: 1}]}]}
        ---
        apiVersion: v1
        kind: Service
        metadata: {name: quote}
        spec: {selector: {app: quote}, ports: [{port: 80, targetPort: http}]}
        """;

    LintCli.Result result = LintCli.withStdin(stream);

    assertThat(result.exitCode()).as(result.err()).isEqualTo(1);
    assertThat(result.out()).startsWith("<stdin>:12: RS001 error: Service default/quote port");
  }

  @Test
  @Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aDirectoryOfManyFilesFitsTheImagesHeap() throws Exception {
    // 200 files of 20,000 nodes each: kept to the end, as they were, they need some 800 MB; the
    // image runs lint with -Xmx96m and exits on an OutOfMemoryError.
    Path manifests = Files.createDirectories(dir.resolve("manifests"));
    String data = "data: [" + "1,".repeat(20_000) + "1]\n";
    for (int i = 0; i < 200; i++) {
      Files.writeString(
          manifests.resolve("f" + i + ".yaml"),
          HEADER.replace("name: x", "name: cm" + i)
              + data
              + "---\napiVersion: v1\nkind: Service\nmetadata: {name: s"
              + i
              + "}\nspec: {selector: {app: a"
              + i
              + "}, ports: [{port: 80, targetPort: http}]}\n");
    }
    Path output = dir.resolve("output.txt");
    Process process =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx96m",
                "-XX:+UseSerialGC",
                "-XX:+ExitOnOutOfMemoryError",
                "-cp",
                System.getProperty("java.class.path"),
                "dev.routesync.app.Main",
                "lint",
                "--allow-external-workloads",
                manifests.toString())
            .redirectErrorStream(true)
            .redirectOutput(output.toFile())
            .start();
    try {
      assertThat(process.waitFor(100, TimeUnit.SECONDS)).isTrue();
      String printed = Files.readString(output);
      assertThat(process.exitValue()).as(printed).isZero();
      assertThat(printed).contains("no findings (200 Services, 0 workloads)");
    } finally {
      process.destroyForcibly();
    }
  }

  @Test
  void whatIsKeptToTheEndIsBoundedOverAllInputs() throws LintInputException {
    // The real bounds are millions; the same budget at a size a test can afford.
    LintedObjects.Collector collector =
        new LintedObjects.Collector("default", new ObjectSize(45, 1_000));
    String service =
        "apiVersion: v1\nkind: Service\nmetadata: {name: s%d}\nspec: {selector: {a: b}}\n";
    // 15 nodes each: the root, 4 keys and their values, name's pair, selector and its pair.
    for (int i = 0; i < 3; i++) {
      for (Manifest m :
          ManifestReader.read(new Input("f" + i, () -> bytes(service.formatted(0))))) {
        collector.add(m);
      }
    }
    Manifest fourth =
        ManifestReader.read(new Input("f3", () -> bytes(service.formatted(3)))).get(0);

    org.assertj.core.api.Assertions.assertThatThrownBy(() -> collector.add(fourth))
        .isInstanceOf(LintInputException.class)
        .hasMessage("f3:1: more than 45 YAML nodes in the Services and workloads of all inputs");
  }

  @Test
  void theTextKeptToTheEndIsBoundedOverAllInputs() throws LintInputException {
    LintedObjects.Collector collector =
        new LintedObjects.Collector("default", new ObjectSize(1_000, 150));
    // 110 characters each, keys included. Only what lint reads counts (annotations are never
    // built): a port's appProtocol is read.
    String service =
        "apiVersion: v1\nkind: Service\nmetadata: {name: s}\n"
            + "spec: {ports: [{port: 80, appProtocol: %s}]}\n";
    collector.add(
        ManifestReader.read(new Input("a", () -> bytes(service.formatted("x".repeat(50))))).get(0));
    Manifest second =
        ManifestReader.read(new Input("b", () -> bytes(service.formatted("x".repeat(50))))).get(0);

    org.assertj.core.api.Assertions.assertThatThrownBy(() -> collector.add(second))
        .hasMessage(
            "b:1: more than 150 characters of text in the Services and workloads of all inputs");
  }

  private static final java.nio.charset.Charset UTF8 = StandardCharsets.UTF_8;

  private static InputStream bytes(String text) {
    return new ByteArrayInputStream(text.getBytes(UTF8));
  }
}
