package dev.routesync.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonObject;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code routesync bootstrap} through {@code Main}: flags, exit codes, stdout and --output-file.
 */
class BootstrapCommandTest {

  @TempDir Path dir;

  @Test
  void printsTheGrpcBootstrapOnStdout() {
    BootstrapCli.Result result =
        BootstrapCli.run("--node-name", "node-a", "--zone", "zone-1", "--socket", "/run/a.sock");

    assertThat(result.exitCode()).as(result.err()).isZero();
    assertThat(result.err()).isEmpty();
    JsonObject json = new JsonObject(result.out());
    assertThat(json.getJsonArray("xds_servers").getJsonObject(0).getString("server_uri"))
        .isEqualTo("unix:///run/a.sock");
    assertThat(json.getJsonObject("node").getString("id")).isEqualTo("node-a");
    assertThat(json.getJsonObject("node").getJsonObject("locality").getString("zone"))
        .isEqualTo("zone-1");
  }

  @Test
  void theSocketDefaultsToTheAgentsDefault() {
    BootstrapCli.Result result = BootstrapCli.run("--node-name", "node-a", "--zone=z");

    assertThat(new JsonObject(result.out()).encode())
        .contains("unix:///var/run/routesync/routesync.sock");
  }

  @Test
  void noNodeNameIsAUsageErrorSayingWhereItComesFrom() {
    // The test JVM has neither ROUTESYNC_NODE_NAME nor NODE_NAME (checked: else this proves less).
    assertThat(System.getenv("ROUTESYNC_NODE_NAME")).isNull();
    assertThat(System.getenv("NODE_NAME")).isNull();

    BootstrapCli.Result result = BootstrapCli.run("--zone", "z");

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.out()).isEmpty();
    assertThat(result.err())
        .startsWith("routesync: no node name: give --node-name, or set NODE_NAME")
        .contains("spec.nodeName");
    assertThat(BootstrapCli.run("--node-name", "  ", "--zone", "z").exitCode()).isEqualTo(2);
  }

  @Test
  void invalidValuesAreUsageErrorsNamingTheFlag() {
    assertThat(BootstrapCli.run("--node-name", "Node_A", "--zone=z").err())
        .startsWith("routesync: --node-name: ");
    assertThat(BootstrapCli.run("--node-name", "a", "--zone", "a b").err())
        .startsWith("routesync: --zone: ");
    assertThat(BootstrapCli.run("--node-name", "a", "--zone=z", "--socket", "/a b").err())
        .startsWith("routesync: --socket /a b: ");
    assertThat(BootstrapCli.run("--node-name", "a", "--zone=z", "--request-timeout", "1h").err())
        .startsWith("routesync: --request-timeout ");
    for (String[] args :
        new String[][] {
          {"--node-name", "Node_A", "--zone=z"},
          {"--node-name", "a", "--zone", "a b"},
          {"--node-name", "a", "--zone=z", "--socket", "/a b"},
          {"--node-name", "a", "--zone=z", "--request-timeout", "1h"},
          {"--node-name", "a", "--zone=z", "--envoy", "--cluster", ""},
        }) {
      BootstrapCli.Result result = BootstrapCli.run(args);
      assertThat(result.exitCode()).as(String.join(" ", args) + ": " + result.err()).isEqualTo(2);
      assertThat(result.out()).isEmpty();
    }
  }

  @Test
  void envoyFlagsWithoutEnvoyAreUsageErrors() {
    BootstrapCli.Result cluster = BootstrapCli.run("--node-name", "a", "--zone=z", "--cluster=x");
    BootstrapCli.Result delta = BootstrapCli.run("--node-name", "a", "--zone=z", "--delta=false");

    assertThat(cluster.exitCode()).isEqualTo(2);
    assertThat(cluster.err()).startsWith("routesync: --cluster applies to --envoy only");
    assertThat(delta.exitCode()).isEqualTo(2);
    assertThat(delta.err()).startsWith("routesync: --delta applies to --envoy only");
  }

  @Test
  void envoyDefaultsToDeltaAndTheRoutesyncCluster() {
    JsonObject delta =
        new JsonObject(BootstrapCli.run("--node-name", "a", "--zone=z", "--envoy").out());
    JsonObject sotw =
        new JsonObject(
            BootstrapCli.run(
                    "--node-name", "a", "--zone=z", "--envoy", "--delta=false", "--cluster=web")
                .out());

    assertThat(delta.getJsonObject("node").getString("cluster")).isEqualTo("routesync");
    assertThat(
            delta
                .getJsonObject("dynamic_resources")
                .getJsonObject("ads_config")
                .getString("api_type"))
        .isEqualTo("DELTA_GRPC");
    assertThat(sotw.getJsonObject("node").getString("cluster")).isEqualTo("web");
    assertThat(
            sotw.getJsonObject("dynamic_resources")
                .getJsonObject("ads_config")
                .getString("api_type"))
        .isEqualTo("GRPC");
  }

  @Test
  void theOldNoDeltaSpellingStillWorksWithADeprecationWarning() {
    BootstrapCli.Result old =
        BootstrapCli.run("--node-name", "a", "--zone=z", "--envoy", "--no-delta");
    BootstrapCli.Result bare =
        BootstrapCli.run("--node-name", "a", "--zone=z", "--envoy", "--delta");

    assertThat(old.exitCode()).as(old.err()).isZero();
    assertThat(
            new JsonObject(old.out())
                .getJsonObject("dynamic_resources")
                .getJsonObject("ads_config")
                .getString("api_type"))
        .isEqualTo("GRPC");
    assertThat(old.err())
        .contains("routesync bootstrap: --no-delta is deprecated, use --delta=false");
    assertThat(bare.err()).doesNotContain("deprecated");
    assertThat(BootstrapCli.run("--help").out())
        .contains("--delta[=<delta>]")
        .doesNotContain("--no-delta")
        .doesNotContain("[no-]");
  }

  @Test
  void outputWritesTheFileWithMode0644AndReplacesAnOldOne() throws Exception {
    Path file = dir.resolve("bootstrap.json");
    Files.writeString(file, "old");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));

    BootstrapCli.Result result =
        BootstrapCli.run(
            "--node-name", "node-a", "--zone", "zone-1", "--output-file", file.toString());

    assertThat(result.exitCode()).as(result.err()).isZero();
    assertThat(result.out()).isEmpty();
    assertThat(result.err())
        .isEqualTo("routesync bootstrap: wrote " + file + " (node.id node-a, zone zone-1)\n");
    assertThat(new JsonObject(Files.readString(file)).getJsonObject("node").getString("id"))
        .isEqualTo("node-a");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
        .isEqualTo("rw-r--r--");
    try (var entries = Files.list(dir)) {
      assertThat(entries).containsExactly(file); // no temporary file left beside it
    }
  }

  @Test
  void theOldOutputFlagStillWritesTheFileWithADeprecationWarning() throws Exception {
    Path file = dir.resolve("bootstrap.json");
    Path short_ = dir.resolve("short.json");

    BootstrapCli.Result result =
        BootstrapCli.run("--node-name", "node-a", "--zone", "zone-1", "--output", file.toString());
    BootstrapCli.Result shortFlag =
        BootstrapCli.run("--node-name", "node-a", "--zone", "zone-1", "-o", short_.toString());

    assertThat(result.exitCode()).as(result.err()).isZero();
    assertThat(result.err())
        .isEqualTo(
            "routesync bootstrap: --output FILE is deprecated, use --output-file FILE\n"
                + "routesync bootstrap: wrote "
                + file
                + " (node.id node-a, zone zone-1)\n");
    assertThat(Files.readString(file)).isEqualTo(Files.readString(short_));
    assertThat(shortFlag.err()).startsWith("routesync bootstrap: -o FILE is deprecated");
  }

  @Test
  void bothOutputFlagsAreAUsageError() {
    BootstrapCli.Result result =
        BootstrapCli.run(
            "--node-name", "a", "--zone=z", "-o", "/tmp/a.json", "--output-file", "/tmp/b.json");

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err()).contains("--output-file").contains("not both");
  }

  @Test
  void anOutputThatCannotBeWrittenIsExitCodeOne() throws Exception {
    Path missingDir = dir.resolve("missing").resolve("bootstrap.json");
    Path directory = Files.createDirectory(dir.resolve("taken"));

    BootstrapCli.Result noDir =
        BootstrapCli.run("--node-name", "a", "--zone=z", "--output-file", missingDir.toString());
    BootstrapCli.Result isDir =
        BootstrapCli.run("--node-name", "a", "--zone=z", "--output-file", directory.toString());

    assertThat(noDir.exitCode()).isEqualTo(1);
    assertThat(noDir.err())
        .isEqualTo(
            "routesync bootstrap: cannot write "
                + missingDir
                + ": NoSuchFileException: "
                + missingDir.getParent()
                + ": no such directory\n");
    assertThat(isDir.exitCode()).isEqualTo(1);
    assertThat(isDir.err()).contains("cannot write " + directory).contains("is a directory");
    try (var entries = Files.list(dir)) {
      assertThat(entries).containsExactlyInAnyOrder(directory);
    }
  }

  @Test
  void anEmptyZoneLeavesItOutWithoutAskingTheApiServer() throws Exception {
    // Were the API server asked, this one would refuse the connection and the command would warn.
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closedPort = socket.getLocalPort();
    }
    Path kubeconfig = BootstrapCli.kubeconfig(dir, "http://127.0.0.1:" + closedPort);

    long start = System.nanoTime();
    BootstrapCli.Result result =
        BootstrapCli.run("--node-name", "a", "--zone=", "--kubeconfig", kubeconfig.toString());

    assertThat(result.exitCode()).isZero();
    assertThat(result.err()).isEmpty();
    assertThat(new JsonObject(result.out()).getJsonObject("node").getJsonObject("locality"))
        .isEqualTo(new JsonObject());
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
  }

  @Test
  void theCommandIsListedInTheTopLevelHelp() {
    java.io.StringWriter out = new java.io.StringWriter();
    picocli.CommandLine commandLine = dev.routesync.app.Main.commandLine();
    commandLine.setOut(new java.io.PrintWriter(out, true));
    assertThat(commandLine.execute("--help")).isZero();
    assertThat(out.toString()).contains("bootstrap");
  }
}
