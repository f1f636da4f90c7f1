package dev.routesync.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The image's JVM flags (the Dockerfile's {@code JAVA_TOOL_OPTIONS}) are an explicit memory layout
 * that fits the DaemonSet's 256Mi limit (which {@link DaemonsetManifestsTest} holds the rendered
 * manifests to, with kubectl), and the install guide (docs/install.md, "Memory budget") quotes them
 * as they are. Needs no kubectl.
 */
class ImageMemoryLayoutTest {

  /** The DaemonSet's memory limit (daemonset/base/daemonset.yaml). */
  private static final long LIMIT = 256 * MemoryBudget.MIB;

  private static final Pattern ENTRYPOINT =
      Pattern.compile("^ENTRYPOINT (\\[.*\\])$", Pattern.MULTILINE);

  @Test
  void theImagesFlagsAreAnExplicitLayoutThatFitsTheLimit() throws IOException {
    JvmLayout layout = JvmLayout.ofDockerfile(Path.of("Dockerfile"));
    // A percentage of the limit sizes only the heap, and left the non-heap no room (issue 10).
    assertThat(layout.mentions("RAMPercentage")).as("no MaxRAMPercentage").isFalse();
    assertThat(layout.flags())
        .contains(
            "-XX:+UseSerialGC",
            "-XX:+ExitOnOutOfMemoryError",
            // Without a CPU limit the JVM would size its threads and malloc arenas by the node.
            "-XX:ActiveProcessorCount=2")
        .anyMatch(f -> f.startsWith("-XX:TrimNativeHeapInterval="));
    // NMT costs memory and is for the soak only (soak-memory.sh --nmt).
    assertThat(layout.mentions("NativeMemoryTracking")).isFalse();
    MemoryBudget.assertFits(layout, LIMIT);
  }

  @Test
  void theEntrypointCarriesNoJvmFlagsThatWouldShadowAnOverride() throws IOException {
    Matcher matcher = ENTRYPOINT.matcher(Files.readString(Path.of("Dockerfile")));
    assertThat(matcher.find()).as("an exec-form ENTRYPOINT").isTrue();
    // Command-line flags win over JAVA_TOOL_OPTIONS: memory flags there would silently beat the
    // DaemonSet's JAVA_TOOL_OPTIONS for another limit. The class-data-sharing archive's two flags
    // are no memory layout (and -Xshare:auto runs on without an archive that does not match).
    assertThat(matcher.group(1))
        .isEqualTo(
            "[\"/opt/jre/bin/java\", \"-XX:SharedArchiveFile=/app/routesync.jsa\","
                + " \"-Xshare:auto\", \"-jar\", \"/app/routesync.jar\"]");
  }

  @Test
  void theInstallGuideQuotesTheImagesFlags() throws IOException {
    String flags = String.join(" ", JvmLayout.ofDockerfile(Path.of("Dockerfile")).flags());
    assertThat(Files.readString(Path.of("docs", "install.md"))).contains(flags);
  }
}
